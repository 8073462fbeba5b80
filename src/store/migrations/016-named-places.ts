import type { Migration } from "./migration.js";
import { rebuildAtOpen } from "./rebuild-at-open.js";

/**
 * What the geocoder resolves, rebuilt: named places from the imported data, and
 * localities that keep apart places sharing a name.
 *
 * Why: "Marienplatz", "Kamppi" or "Westminster" were not found (only cities and postcodes
 * of businesses' addresses were indexed), and every "Portland" of the data was averaged
 * into one point (somewhere in Idaho between Oregon and Maine).
 *
 * - `named_places`: cities, districts (suburbs, quarters, neighbourhoods, administrative
 *   districts), squares and other named localities of an OSM import, at their point (a
 *   node's, an area's centroid), with the country they lie in. Replaced per source at the
 *   end of each import.
 * - `localities` (replaces migration 002's): one row per place a name may mean, of every
 *   kind: cities, postcodes and streets grouped from businesses' addresses, split into
 *   clusters where the same name lies far apart; and the named places. Keys are folded
 *   with `foldForSearch` ("Muenchen" = "München"). Rebuilt after every import, and from the
 *   places already imported when the instance first opens after this migration (`rebuildAtOpen`).
 */
export const namedPlaces: Migration = {
  name: "places: named places and per-cluster localities for the geocoder",
  up(db) {
    db.exec(`
      CREATE TABLE named_places (
        source_id INTEGER NOT NULL REFERENCES place_sources(id) ON DELETE CASCADE,
        osm_id TEXT NOT NULL,               -- osm:node:1, osm:way:2, osm:relation:3
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('city', 'district', 'square', 'locality')),
        country TEXT NOT NULL DEFAULT '',   -- ISO 3166-1 alpha-2 of its point, '' when unknown
        lat REAL NOT NULL,
        lng REAL NOT NULL,
        PRIMARY KEY (source_id, osm_id)
      ) STRICT, WITHOUT ROWID;

      DROP TABLE localities;
      CREATE TABLE localities (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('city', 'postcode', 'street', 'square', 'district', 'locality')),
        key TEXT NOT NULL,                  -- foldForSearch of the name ("munchen", "ec4m 9br")
        name TEXT NOT NULL,                 -- as written most often in the data
        city TEXT,                          -- postcodes and streets: the most common city of their places
        country TEXT NOT NULL DEFAULT '',   -- ISO 3166-1 alpha-2, '' when unknown
        lat REAL NOT NULL,
        lng REAL NOT NULL,
        place_count INTEGER NOT NULL        -- businesses behind it (0 for a named place)
      ) STRICT;
      CREATE INDEX localities_by_key ON localities (key, kind);
    `);
    rebuildAtOpen(db, "localities");
  },
};
