import { circleBoxes, distanceKm, type LatLng } from "../../core/geo.js";
import { cellRangesOfBox, cellSql } from "./geo-grid.js";
import { foldForSearch } from "../../core/text.js";
import type { Db } from "../../store/connection.js";

/**
 * The geocoder's index of the imported data (migration 016): every place a name may
 * mean. From businesses' addresses: cities (`addr:city`), postcodes and streets, each
 * split into clusters where the same name lies far apart (two Portlands stay two); from
 * OSM: named places (cities, districts, squares, localities). Keys are folded with
 * `foldForSearch`, the function the geocoder applies to what users type.
 */

export type LocalityKind = "city" | "postcode" | "street" | "square" | "district" | "locality";

export interface LocalityRow {
  kind: LocalityKind;
  /** Set while rebuilding: the point is a named place's (OSM's centre of a city), not the businesses' centroid. */
  named?: boolean;
  key: string;
  name: string;
  city: string | null;
  country: string;
  lat: number;
  lng: number;
  place_count: number;
}

/** A named place of an import, as `replaceNamedPlaces` writes it. */
export interface NamedPlaceRow {
  osmId: string;
  name: string;
  kind: "city" | "district" | "square" | "locality";
  country: string | null;
  lat: number;
  lng: number;
}

/**
 * How far apart two places of one name may lie and still be one locality: a city's
 * businesses spread over its area; a street's over its length (per city).
 */
const CLUSTER_KM: Readonly<Record<"city" | "postcode" | "street", number>> = { city: 30, postcode: 30, street: 3 };

/**
 * Prefixes of administrative names people leave out ("City of Westminster" is
 * "Westminster"): a named place with one is also found without it.
 */
const ADMINISTRATIVE_PREFIX = /^(?:(?:city|town|royal borough|london borough|borough|municipality|county|district) of) (.+)$/;

/** The keys a name is found under: its folded self, and without an administrative prefix. */
export function localityKeys(name: string): string[] {
  const key = foldForSearch(name);
  const short = ADMINISTRATIVE_PREFIX.exec(key)?.[1];
  return short ? [key, short] : [key];
}

interface Cluster {
  lat: number;
  lng: number;
  count: number;
  spellings: Map<string, number>;
  cities: Map<string, number>;
  countries: Map<string, number>;
}

function mostCommon(counts: Map<string, number>): string | null {
  let best: string | null = null;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== null && value < best)) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

const bump = (counts: Map<string, number>, value: string | null) => {
  if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
};

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Greedy clustering: each point joins the first cluster whose centre is within `km`, else starts one. */
class Clusters {
  private readonly groups = new Map<string, Cluster[]>();

  constructor(private readonly km: number) {}

  add(group: string, point: LatLng, spelling: string, city: string | null, country: string | null): void {
    let clusters = this.groups.get(group);
    if (!clusters) this.groups.set(group, (clusters = []));
    let cluster = clusters.find((c) => distanceKm({ lat: c.lat / c.count, lng: c.lng / c.count }, point) <= this.km);
    if (!cluster) clusters.push((cluster = { lat: 0, lng: 0, count: 0, spellings: new Map(), cities: new Map(), countries: new Map() }));
    cluster.lat += point.lat;
    cluster.lng += point.lng;
    cluster.count++;
    bump(cluster.spellings, spelling);
    bump(cluster.cities, city);
    bump(cluster.countries, country);
  }

  *rows(kind: LocalityKind, keyOf: (group: string) => string): Generator<LocalityRow> {
    for (const [group, clusters] of this.groups) {
      for (const c of clusters) {
        yield {
          kind,
          key: keyOf(group),
          name: mostCommon(c.spellings)!,
          city: kind === "city" ? null : mostCommon(c.cities),
          country: mostCommon(c.countries) ?? "",
          lat: c.lat / c.count,
          lng: c.lng / c.count,
          place_count: c.count,
        };
      }
    }
  }
}

/** How far from a city a named place may lie to be said to be in it. */
const NAMED_CITY_KM = 15;

/** Cities by grid cell of GRID_DEG, to find the nearest to a point without comparing them all. */
const GRID_DEG = 0.25;
class CityGrid {
  private readonly cells = new Map<string, LocalityRow[]>();

  constructor(rows: readonly LocalityRow[]) {
    for (const r of rows) {
      const key = `${Math.floor(r.lat / GRID_DEG)},${Math.floor(r.lng / GRID_DEG)}`;
      const list = this.cells.get(key) ?? [];
      list.push(r);
      this.cells.set(key, list);
    }
  }

  nameNear(point: LatLng, km: number): string | null {
    const row = Math.floor(point.lat / GRID_DEG);
    const col = Math.floor(point.lng / GRID_DEG);
    let best: { name: string; d: number } | null = null;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dc = -1; dc <= 1; dc++) {
        for (const r of this.cells.get(`${row + dr},${col + dc}`) ?? []) {
          const d = distanceKm(point, r);
          if (d <= km && (!best || d < best.d)) best = { name: r.name, d };
        }
      }
    }
    return best?.name ?? null;
  }
}

export class LocalitiesRepo {
  constructor(private readonly db: Db) {}

  /** The localities a folded name may mean, most places first. */
  find(key: string): LocalityRow[] {
    return this.db.prepare("SELECT kind, key, name, city, country, lat, lng, place_count FROM localities WHERE key = ? ORDER BY place_count DESC, id").all(key) as LocalityRow[];
  }

  /**
   * Whether the index holds any place within `km` of a point: the circle's boxes (`circleBoxes`,
   * the one rule of a circle's cover: across the antimeridian two, at a pole a band), their
   * grid rows through `places_by_cell`, then the circle.
   */
  anyPlaceWithin(point: LatLng, km: number): boolean {
    const statement = this.db.prepare(
      `SELECT lat, lng FROM places WHERE ${cellSql("lat", "lng")} BETWEEN ? AND ? AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ? LIMIT 64`,
    );
    return circleBoxes(point, km).some((box) =>
      cellRangesOfBox(box).some(([first, last]) =>
        (statement.all(first, last, box.minLat, box.maxLat, box.minLng, box.maxLng) as LatLng[]).some((p) => distanceKm(point, p) <= km),
      ),
    );
  }

  /** The data's city names whose folded key starts with the same letter as `key` (suggestions for a name it does not know). */
  cityNamesLike(key: string): Array<{ key: string; name: string; country: string | null }> {
    return this.db
      .prepare("SELECT key, name, country FROM localities WHERE kind = 'city' AND substr(key, 1, 1) = ? GROUP BY key ORDER BY max(place_count) DESC LIMIT 5000")
      .all(key.slice(0, 1)) as Array<{ key: string; name: string; country: string | null }>;
  }

  /** Replace one source's named places (the import's OSM cities, districts, squares), in one transaction. */
  replaceNamedPlaces(sourceId: number, places: readonly NamedPlaceRow[]): void {
    const insert = this.db.prepare("INSERT OR REPLACE INTO named_places (source_id, osm_id, name, kind, country, lat, lng) VALUES (?, ?, ?, ?, ?, ?, ?)");
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM named_places WHERE source_id = ?").run(sourceId);
      for (const p of places) insert.run(sourceId, p.osmId, p.name, p.kind, p.country ?? "", p.lat, p.lng);
    }).immediate();
  }

  /**
   * Rebuild `localities` from all places and named places, in one transaction (the
   * geocoder never sees a half-built index). Cities and postcodes are grouped by name,
   * streets by name and city; each group splits into clusters CLUSTER_KM apart; a
   * cluster's country is the most common one its places state (places without one join
   * by position).
   */
  rebuild(): { cities: number; postcodes: number; streets: number; named: number } {
    const cities = new Clusters(CLUSTER_KM.city);
    const postcodes = new Clusters(CLUSTER_KM.postcode);
    const streets = new Clusters(CLUSTER_KM.street);
    // Raw rows (no object per row) and each distinct spelling folded once: a country's
    // two million places name a few thousand cities and a few hundred thousand streets.
    const rows = this.db
      .prepare("SELECT city, postcode, street, country, lat, lng FROM places WHERE city IS NOT NULL OR postcode IS NOT NULL OR street IS NOT NULL")
      .raw(true)
      .iterate() as IterableIterator<[string | null, string | null, string | null, string | null, number, number]>;
    const folded = new Map<string, string>();
    const fold = (value: string) => {
      let key = folded.get(value);
      if (key === undefined) folded.set(value, (key = foldForSearch(value)));
      return key;
    };
    for (const [rawCity, rawPostcode, rawStreet, country, lat, lng] of rows) {
      const point = { lat, lng };
      const city = rawCity?.trim() || null;
      const cityKey = city ? fold(city) : "";
      if (cityKey) cities.add(cityKey, point, city!, null, country);
      const postcode = rawPostcode?.trim();
      const postcodeKey = postcode ? fold(postcode) : "";
      if (postcodeKey) postcodes.add(postcodeKey, point, postcode!, city, country);
      const street = rawStreet?.trim();
      const streetKey = street ? fold(street) : "";
      if (streetKey) streets.add(`${streetKey}\u0000${cityKey}`, point, street!, city, country);
    }
    // Nodes first: a place node is where a city's centre is; a boundary's centroid is rougher.
    const named = this.db
      .prepare("SELECT name, kind, country, lat, lng, osm_id LIKE 'osm:node:%' AS node FROM named_places ORDER BY osm_id NOT LIKE 'osm:node:%', osm_id")
      .all() as Array<{ name: string; kind: LocalityKind; country: string; lat: number; lng: number; node: number }>;
    const cityRows = [...cities.rows("city", (g) => g)];
    // By key, so that matching a country's tens of thousands of named places is not quadratic.
    const citiesByKey = groupBy(cityRows, (r) => r.key);
    const namedByKindAndKey = new Map<string, LocalityRow[]>();
    const namedRows: LocalityRow[] = [];
    // Cities and districts of place nodes, by key: a boundary of the same name near one is that place.
    const placeNodes = new Map<string, LatLng[]>();
    for (const p of named) {
      for (const key of localityKeys(p.name)) {
        const settlement = p.kind === "city" || p.kind === "district";
        if (settlement && !p.node && placeNodes.get(key)?.some((n) => distanceKm(n, p) <= CLUSTER_KM.city)) continue;
        if (settlement && p.node) placeNodes.set(key, [...(placeNodes.get(key) ?? []), p]);
        // A city of the addresses that OSM also names as a city or a district (`addr:city=Westminster`
        // beside `place=suburb` Westminster): one locality, at OSM's point, not at the mean of
        // the addresses (an extract clipped at its edge holds them all on one side).
        const city = p.kind === "city" || p.kind === "district" ? citiesByKey.get(key)?.find((r) => distanceKm(r, p) <= CLUSTER_KM.city) : undefined;
        if (city) {
          if (!city.named) Object.assign(city, { lat: p.lat, lng: p.lng, named: true, country: city.country || p.country });
          continue;
        }
        // The same named place twice (a node and its boundary): once.
        const kindAndKey = `${p.kind}\u0000${key}`;
        let same = namedByKindAndKey.get(kindAndKey);
        if (same?.some((r) => distanceKm(r, p) <= CLUSTER_KM.street)) continue;
        if (!same) namedByKindAndKey.set(kindAndKey, (same = []));
        const row: LocalityRow = { kind: p.kind, key, name: p.name, city: null, country: p.country, lat: p.lat, lng: p.lng, place_count: 0 };
        namedRows.push(row);
        same.push(row);
      }
    }
    // Districts and squares say which city they are in ("Marienplatz, München"): the nearest within NAMED_CITY_KM.
    const nearest = new CityGrid(cityRows);
    for (const r of namedRows) if (r.kind !== "city") r.city = nearest.nameNear(r, NAMED_CITY_KM);
    const counts = { cities: cityRows.length, postcodes: 0, streets: 0, named: namedRows.length };
    this.db.transaction(() => {
      this.db.exec("DELETE FROM localities");
      const insert = this.db.prepare("INSERT INTO localities (kind, key, name, city, country, lat, lng, place_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
      const write = (r: LocalityRow) => insert.run(r.kind, r.key, r.name, r.city, r.country, r.lat, r.lng, r.place_count);
      for (const r of cityRows) write(r);
      for (const r of postcodes.rows("postcode", (g) => g)) (write(r), counts.postcodes++);
      for (const r of streets.rows("street", (g) => g.slice(0, g.indexOf("\u0000")))) (write(r), counts.streets++);
      for (const r of namedRows) write(r);
    }).immediate();
    return counts;
  }
}
