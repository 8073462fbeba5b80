import { badRequest } from "../../core/errors.js";
import { distanceKm, type LatLng } from "../../core/geo.js";
import type { ResolvedLocation } from "../../core/schemas/lead.js";
import { editDistance, foldForSearch } from "../../core/text.js";
import type { Db } from "../../store/db.js";
import { LocalitiesRepo, type LocalityKind, type LocalityRow } from "../store/localities.js";
import type { PlaceSearchProvider } from "../search/provider.js";
import { Gazetteer, type GazetteerCity } from "./gazetteer.js";
import { parseQualifiers, type Qualifier } from "./regions.js";
import type { NominatimGeocoder } from "./nominatim.js";

export interface GeocodeInput {
  location: string;
  lat?: number | null;
  lng?: number | null;
  locationPlaceId?: string | null;
}

export interface GeocodeResult {
  center: LatLng;
  /** What the location was understood as: the place's name as the data spells it. */
  name: string;
  kind: ResolvedLocation["kind"];
  /** How the point was found, for logs and tests. */
  source: "coordinates" | "place-id" | "postcode" | "locality" | "gazetteer" | "nominatim";
}

/** A word that may be (part of) a postcode: it has a digit ("9490", "80331", "EC4M", "9BR"). */
const HAS_DIGIT = /\d/;
/** A place named after a city qualifier ("Marienplatz, München") lies within this distance of it. */
const NEAR_CITY_KM = 25;
/** A place of imported data counts as where a user searches when the data has places this close. */
const NEAR_DATA_KM = 50;
/**
 * The gazetteer's confidence rule (docs/api.md, "Centre"): a city it names without a
 * country (or city part) is taken when the imported places reach it, or when it is big
 * enough that the name means it to most people. A small town of that name far from every
 * imported place ("Atlantis" → Atlantis, ZA, 67,000 people) is a guess the search would
 * answer with nothing: the location is refused with suggestions instead (the town with
 * its country, which is then taken as asked).
 */
export const GAZETTEER_TRUSTED_POPULATION = 100_000;
/** A locality stands for a gazetteer city of the same name when it lies this close to it ("Portland, OR"). */
const SAME_CITY_KM = 40;

/** For a bare name, which kind of locality it most likely means. */
const KIND_ORDER: Readonly<Record<Exclude<LocalityKind, "postcode">, number>> = { city: 0, district: 1, square: 2, locality: 3, street: 4 };

/**
 * Offline geocoding, in the order docs/api.md ("Centre") gives: explicit coordinates; a
 * provider place ID; then the free-text location against what the imported data holds
 * (postcodes as written, "EC4M 9BR" and "80331 München"; cities, districts, squares,
 * streets: "Marienplatz, München", "Kamppi"), then against the GeoNames gazetteer
 * ("Paris, FR", "Portland, OR"). A name the data and the gazetteer both know prefers the
 * place near the imported data ("Westminster" with London imported is not the one in
 * Colorado); accents and transliterations are folded ("Muenchen" = "München").
 */
export class Geocoder {
  private readonly localities: LocalitiesRepo;

  constructor(
    db: Db,
    private readonly gazetteer: () => Gazetteer = Gazetteer.load,
    /** The online fallback for text nothing offline knows (`OUTREACH_NOMINATIM_URL`); none: offline only. */
    private readonly online?: NominatimGeocoder,
  ) {
    this.localities = new LocalitiesRepo(db);
  }

  async resolve(input: GeocodeInput, provider: PlaceSearchProvider, signal: AbortSignal): Promise<GeocodeResult> {
    const hasLat = input.lat !== undefined && input.lat !== null;
    const hasLng = input.lng !== undefined && input.lng !== null;
    if (hasLat !== hasLng) {
      throw badRequest(hasLat ? "lng: required when lat is given (send both or neither)" : "lat: required when lng is given (send both or neither)");
    }
    if (hasLat && hasLng) {
      const center = { lat: input.lat!, lng: input.lng! };
      return { center, name: `${center.lat}, ${center.lng}`, kind: "coordinates", source: "coordinates" };
    }
    if (input.locationPlaceId) {
      const place = await provider.resolvePlaceId(input.locationPlaceId, signal);
      if (!place) throw badRequest(`locationPlaceId: ${JSON.stringify(input.locationPlaceId)} is not a known place ID`);
      return { center: place.center, name: place.name, kind: "place-id", source: "place-id" };
    }
    const found = this.resolveText(input.location) ?? (await this.resolveOnline(input.location, signal));
    if (!found) throw badRequest(this.unknownLocation(input.location));
    return found;
  }

  /** Whether the places index holds any place within `km` of a point (an empty result then says why). */
  hasPlacesWithin(point: LatLng, km: number): boolean {
    return this.localities.anyPlaceWithin(point, km);
  }

  /** The 400's message for a location not taken: what it could have meant, if anything comes close. */
  private unknownLocation(location: string): string {
    const head = location.split(",")[0]!.trim();
    const key = foldForSearch(head);
    const suggestions: string[] = [];
    // A bare name the gazetteer knows was refused by the confidence rule: offer it with its country.
    const far = key && !location.includes(",") ? this.gazetteer().find(head)[0] : undefined;
    if (far) suggestions.push(gazetteerName(far));
    if (key) {
      const close = this.localities
        .cityNamesLike(key)
        .map((row) => ({ row, distance: editDistance(key, row.key) }))
        .filter((c) => c.distance <= Math.max(1, Math.floor(key.length / 4)))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      for (const { row } of close) suggestions.push(row.country ? `${row.name}, ${row.country}` : row.name);
    }
    const why = far ? `is not a place near the imported places (the ${far.name} we know, in ${far.country}, is far from all of them)` : "is not a place we know";
    const hint = suggestions.length ? `did you mean ${suggestions.map((s) => JSON.stringify(s)).join(" or ")}? Otherwise try` : "try";
    return `location: ${JSON.stringify(location)} ${why}; ${hint} a city, district, street or postcode (optionally with ", city" or ", country"), or send lat and lng`;
  }

  /** Free text → point, or undefined when nothing matches. */
  resolveText(location: string): GeocodeResult | undefined {
    const parts = location.split(",").map((p) => p.trim()).filter(Boolean);
    // The last part may narrow it: a country or a US state ("Portland, OR"), else a city ("Kamppi, Helsinki").
    const readings = parts.length >= 2 ? parseQualifiers(parts[parts.length - 1]!) : [];
    for (const qualifier of readings) {
      const found = this.resolveParts(parts.slice(0, -1), qualifier);
      if (found) return found;
    }
    return readings.length > 0 ? undefined : this.resolveParts(parts, undefined);
  }

  private resolveParts(parts: string[], qualifier: Qualifier | undefined): GeocodeResult | undefined {
    let rest = parts;
    let cityHint: string | undefined;
    if (rest.length >= 2) {
      cityHint = rest[rest.length - 1];
      rest = rest.slice(0, -1);
    }
    const head = rest.join(" ");
    if (!head) return undefined;
    const words = head.split(/\s+/);
    const hintPoints = cityHint ? this.cityPoints(cityHint, qualifier) : undefined;
    if (hintPoints && hintPoints.length === 0) return undefined;

    const postcode = this.postcode(words, cityHint, qualifier, hintPoints);
    if (postcode) return postcode;
    const otherWords = words.filter((w) => !HAS_DIGIT.test(w)).join(" ");
    for (const text of otherWords && otherWords !== head ? [head, otherWords] : [head]) {
      const found = this.named(text, qualifier, hintPoints) ?? this.fromGazetteer(text, qualifier, hintPoints);
      if (found) return found;
    }
    return undefined;
  }

  /** Nominatim's answer, when it is configured; its failure is the caller's (a provider failure, not the user's text). */
  private async resolveOnline(location: string, signal: AbortSignal): Promise<GeocodeResult | undefined> {
    if (!this.online) return undefined;
    const center = await this.online.search(location, signal);
    return center ? { center, name: location, kind: "locality", source: "nominatim" } : undefined;
  }

  /**
   * A postcode among the words, as written ("EC4M 9BR": two words, one key), the longest
   * run of words first; the other words (or the city part) pick among postcodes of that
   * key in several places.
   */
  private postcode(words: string[], cityHint: string | undefined, qualifier: Qualifier | undefined, hintPoints: LatLng[] | undefined): GeocodeResult | undefined {
    for (let length = Math.min(3, words.length); length >= 1; length--) {
      for (let start = 0; start + length <= words.length; start++) {
        const window = words.slice(start, start + length);
        if (!window.some((w) => HAS_DIGIT.test(w))) continue;
        const rows = this.localities.find(foldForSearch(window.join(" "))).filter((r) => r.kind === "postcode" && countryFits(r, qualifier));
        if (rows.length === 0) continue;
        const others = [...words.slice(0, start), ...words.slice(start + length)].join(" ") || cityHint || "";
        const city = others ? foldForSearch(others) : "";
        const row =
          (city ? rows.find((r) => r.city && foldForSearch(r.city) === city) : undefined) ??
          (hintPoints ? rows.find((r) => near(r, hintPoints, NEAR_CITY_KM)) : undefined) ??
          rows[0]!;
        return { center: { lat: row.lat, lng: row.lng }, name: row.city ? `${row.name} ${row.city}` : row.name, kind: "postcode", source: "postcode" };
      }
    }
    return undefined;
  }

  /**
   * A locality of the imported data named `text`: its most likely kind (a city over a
   * district over a square over a street). Among several cities of that name (or with a
   * US state to match), each is matched with the gazetteer's city of that name nearby:
   * the most populous wins, at the gazetteer's centre (a city's businesses may cluster
   * off it); otherwise the one with the most places.
   */
  private named(text: string, qualifier: Qualifier | undefined, hintPoints: LatLng[] | undefined): GeocodeResult | undefined {
    let rows = this.localities.find(foldForSearch(text)).filter((r) => r.kind !== "postcode" && countryFits(r, qualifier));
    if (hintPoints) rows = rows.filter((r) => near(r, hintPoints, NEAR_CITY_KM));
    const cities = rows.filter((r) => r.kind === "city");
    let gazetteerCity: GazetteerCity | undefined;
    if (cities.length > 1 || (cities.length > 0 && qualifier?.admin)) {
      const known = this.gazetteer().find(text, qualifier ?? {});
      const matched = cities
        .map((row) => ({ row, city: known.find((c) => distanceKm(row, c) <= SAME_CITY_KM) }))
        .filter((m) => m.city || !qualifier?.admin)
        .sort((a, b) => (b.city?.population ?? -1) - (a.city?.population ?? -1) || b.row.place_count - a.row.place_count);
      // A US state (or any region) is known to the gazetteer only: without its city nearby, no city of the data fits.
      rows = rows.filter((r) => r.kind !== "city" || r === matched[0]?.row);
      gazetteerCity = matched[0]?.city;
    }
    const best = rows.sort((a, b) => KIND_ORDER[a.kind as keyof typeof KIND_ORDER] - KIND_ORDER[b.kind as keyof typeof KIND_ORDER] || b.place_count - a.place_count)[0];
    if (!best) return undefined;
    if (best.kind === "city" && gazetteerCity) {
      return { center: { lat: gazetteerCity.lat, lng: gazetteerCity.lng }, name: gazetteerName(gazetteerCity), kind: "city", source: "locality" };
    }
    const within = best.kind === "street" || best.kind === "square" || best.kind === "district" ? best.city : null;
    return {
      center: { lat: best.lat, lng: best.lng },
      name: within && foldForSearch(within) !== best.key ? `${best.name}, ${within}` : best.name,
      kind: best.kind === "postcode" ? "postcode" : best.kind,
      source: "locality",
    };
  }

  /** A city of the gazetteer: one near the imported data first, then the most populous. */
  private fromGazetteer(text: string, qualifier: Qualifier | undefined, hintPoints: LatLng[] | undefined): GeocodeResult | undefined {
    let cities = this.gazetteer().find(text, qualifier ?? {});
    if (hintPoints) cities = cities.filter((c) => near(c, hintPoints, NEAR_CITY_KM));
    if (cities.length === 0) return undefined;
    const nearData = cities.find((c) => this.localities.anyPlaceWithin(c, NEAR_DATA_KM));
    const city = nearData ?? cities[0]!;
    // The confidence rule: a small town nobody's data is near, named without a country or city, is not a guess to make.
    if (!nearData && !qualifier && !hintPoints && city.population < GAZETTEER_TRUSTED_POPULATION) return undefined;
    return { center: { lat: city.lat, lng: city.lng }, name: gazetteerName(city), kind: "city", source: "gazetteer" };
  }

  /** Where a city part of the location may be: the imported data's cities and districts of that name, else the gazetteer's. */
  private cityPoints(text: string, qualifier: Qualifier | undefined): LatLng[] {
    const rows = this.localities.find(foldForSearch(text)).filter((r) => (r.kind === "city" || r.kind === "district") && countryFits(r, qualifier));
    if (rows.length > 0) return rows;
    return this.gazetteer().find(text, qualifier ?? {});
  }
}

function countryFits(row: LocalityRow, qualifier: Qualifier | undefined): boolean {
  return !qualifier || row.country === "" || row.country === qualifier.country;
}

function near(point: LatLng, others: readonly LatLng[], km: number): boolean {
  return others.some((o) => distanceKm(point, o) <= km);
}

function gazetteerName(city: GazetteerCity): string {
  return city.country === "US" ? `${city.name}, ${city.admin}, US` : `${city.name}, ${city.country}`;
}
