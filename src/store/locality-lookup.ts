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
