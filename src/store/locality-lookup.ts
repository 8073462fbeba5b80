import { distanceKm, type LatLng } from "../core/geo.js";
import type { Db } from "./db.js";

export interface LocalityRow {
  kind: "city" | "postcode";
  key: string;
  name: string;
  city: string | null;
  country: string | null;
  lat: number;
  lng: number;
  place_count: number;
}

/**
 * Read side of the `localities` index (migration 002; the importer rebuilds it). Rows
 * come back most places first, so the caller's first pick is the best-documented one.
 */
export class LocalityLookup {
  constructor(private readonly db: Db) {}

  /** Whether the index holds any place within `km` of a point (the R*Tree's box, then the circle). */
  anyPlaceWithin(point: LatLng, km: number): boolean {
    const dLat = km / 111.2;
    const dLng = km / (111.2 * Math.max(0.01, Math.cos((point.lat * Math.PI) / 180)));
    const rows = this.db
      .prepare("SELECT min_lat AS lat, min_lng AS lng FROM places_rtree WHERE min_lat >= ? AND max_lat <= ? AND min_lng >= ? AND max_lng <= ? LIMIT 64")
      .all(point.lat - dLat, point.lat + dLat, point.lng - dLng, point.lng + dLng) as LatLng[];
    return rows.some((p) => distanceKm(point, p) <= km);
  }

  /** The index's city names starting with the same letter as `key` (suggestions for a name it does not know). */
  cityNamesLike(key: string): Array<{ key: string; name: string; country: string | null }> {
    return this.db
      .prepare("SELECT key, name, country FROM localities WHERE kind = 'city' AND substr(key, 1, 1) = ? GROUP BY key ORDER BY max(place_count) DESC LIMIT 5000")
      .all(key.slice(0, 1)) as Array<{ key: string; name: string; country: string | null }>;
  }

  find(kind: "city" | "postcode", key: string, country?: string): LocalityRow[] {
    if (country) {
      return this.db
        .prepare("SELECT * FROM localities WHERE kind = ? AND key = ? AND country = ? ORDER BY place_count DESC, name LIMIT 20")
        .all(kind, key, country) as LocalityRow[];
    }
    return this.db
      .prepare("SELECT * FROM localities WHERE kind = ? AND key = ? ORDER BY place_count DESC, name LIMIT 20")
      .all(kind, key) as LocalityRow[];
  }
}
