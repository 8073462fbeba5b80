import { badRequest } from "../../core/errors.js";
import type { LatLng } from "../../core/geo.js";
import { editDistance, normaliseKey } from "../../core/text.js";
import type { Db } from "../../store/db.js";
import { LocalityLookup, type LocalityRow } from "../../store/locality-lookup.js";
import type { PlaceSearchProvider } from "../places/provider.js";
import { Gazetteer } from "./gazetteer.js";
import { parseQualifier, type Qualifier } from "./regions.js";

export interface GeocodeInput {
  location: string;
  lat?: number | null;
  lng?: number | null;
  locationPlaceId?: string | null;
}

export interface GeocodeResult {
  center: LatLng;
  /** How the point was found, for logs and tests. */
  source: "coordinates" | "place-id" | "postcode" | "locality" | "gazetteer";
}

/**
 * The gazetteer's confidence rule (docs/api.md, "Centre"): a city it names without a
 * country is taken when it is big enough that the name means it to most people, or when
 * the imported places reach it. A small town of that name far from every imported place
 * ("Atlantis" → Atlantis, ZA, 67,000 people) is a guess the search would answer with
 * nothing: the location is refused with suggestions instead (the town itself with its
 * country, which is then taken as asked).
 */
export const GAZETTEER_TRUSTED_POPULATION = 100_000;
export const NEAR_DATA_KM = 50;

/** A postcode-looking token: has a digit, 3..10 characters of digits, letters and dashes ("9490", "75011", "SW1A"). */
const POSTCODE = /^(?=.*\d)[a-z0-9-]{3,10}$/i;

/**
 * Offline geocoding, in the order docs/api.md ("Centre") gives: explicit coordinates; a provider place ID;
 * then the free-text location against the locality/postcode index built from the
 * imported places ("München", "9490 Vaduz"), then against the GeoNames gazetteer
 * ("Vaduz, Liechtenstein", "Paris, FR", "Paris, Texas"), population breaking ties.
 */
export class Geocoder {
  private readonly localities: LocalityLookup;

  constructor(
    db: Db,
    private readonly gazetteer: () => Gazetteer = Gazetteer.load,
  ) {
    this.localities = new LocalityLookup(db);
  }

  async resolve(input: GeocodeInput, provider: PlaceSearchProvider, signal: AbortSignal): Promise<GeocodeResult> {
    const hasLat = input.lat !== undefined && input.lat !== null;
    const hasLng = input.lng !== undefined && input.lng !== null;
    if (hasLat !== hasLng) {
      throw badRequest(hasLat ? "lng: required when lat is given (send both or neither)" : "lat: required when lng is given (send both or neither)");
    }
    if (hasLat && hasLng) return { center: { lat: input.lat!, lng: input.lng! }, source: "coordinates" };
    if (input.locationPlaceId) {
      const place = await provider.resolvePlaceId(input.locationPlaceId, signal);
      if (!place) throw badRequest(`locationPlaceId: ${JSON.stringify(input.locationPlaceId)} is not a known place ID`);
      return { center: place.center, source: "place-id" };
    }
    const found = this.resolveText(input.location);
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
    const key = normaliseKey(head);
    const suggestions: string[] = [];
    const far = key ? this.gazetteer().find(head)[0] : undefined;
    if (far && !location.includes(",")) suggestions.push(`${far.name}, ${far.country}`);
    if (key) {
      const close = this.localities
        .cityNamesLike(key)
        .map((row) => ({ row, distance: editDistance(key, row.key) }))
        .filter((c) => c.distance <= Math.max(1, Math.floor(key.length / 4)))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      for (const { row } of close) suggestions.push(row.country ? `${row.name}, ${row.country}` : row.name);
    }
    const why = far
      ? `is not a place near the imported places (the ${far.name} we know, in ${far.country}, is far from all of them)`
      : "is not a place we know";
    const hint = suggestions.length ? `did you mean ${suggestions.map((s) => JSON.stringify(s)).join(" or ")}? Otherwise try` : "try";
    return `location: ${JSON.stringify(location)} ${why}; ${hint} a city or postcode (optionally with ", country"), or send lat and lng`;
  }

  /** Free text → point, or undefined when nothing matches. */
  resolveText(location: string): GeocodeResult | undefined {
    const parts = location.split(",").map((p) => p.trim()).filter(Boolean);
    // "Vaduz, Liechtenstein": the last part may narrow the country (or a US state).
    let qualifier: Qualifier | undefined;
    if (parts.length >= 2) qualifier = parseQualifier(parts[parts.length - 1]!);
    const head = (qualifier ? parts.slice(0, -1) : parts).join(" ");
    if (!head) return undefined;
    const words = head.split(/\s+/);
    const postcodes = words.filter((w) => POSTCODE.test(w));
    const cityWords = words.filter((w) => !POSTCODE.test(w)).join(" ");
    const country = qualifier?.country;

    // Postcode first: "9490 Vaduz" is more precise than "Vaduz".
    for (const postcode of postcodes) {
      const rows = this.localities.find("postcode", normaliseKey(postcode), country);
      const row = cityWords ? (rows.find((r) => r.city && normaliseKey(r.city) === normaliseKey(cityWords)) ?? rows[0]) : rows[0];
      if (row) return point(row, "postcode");
    }
    const cityKey = normaliseKey(cityWords || head);
    const wholeKey = normaliseKey(head);
    const locality = this.pickLocality(this.localities.find("city", wholeKey, country)) ?? this.pickLocality(this.localities.find("city", cityKey, country));
    if (locality && (!qualifier?.admin || qualifier.country === locality.country)) return point(locality, "locality");

    const gazetteer = this.gazetteer();
    const city = gazetteer.find(head, qualifier ?? {})[0] ?? (cityWords ? gazetteer.find(cityWords, qualifier ?? {})[0] : undefined);
    if (city && (qualifier || city.population >= GAZETTEER_TRUSTED_POPULATION || this.localities.anyPlaceWithin(city, NEAR_DATA_KM))) {
      return { center: { lat: city.lat, lng: city.lng }, source: "gazetteer" };
    }
    return undefined;
  }

  private pickLocality(rows: LocalityRow[]): LocalityRow | undefined {
    return rows[0];
  }
}

function point(row: LocalityRow, source: GeocodeResult["source"]): GeocodeResult {
  return { center: { lat: row.lat, lng: row.lng }, source };
}
