import type { Migration } from "./migration.js";

/**
 * The local places index: the embedded default lead provider.
 *
 * - `place_sources`: one row per imported source (a file), with its data date and licence.
 * - `places`: one row per business, keyed by a stable `place_id` per source
 *   (`osm:node:123`, `osm:way:456`, `overture:<id>`, `csv:<source>:<key>`). Lead fields are
 *   stored already mapped and cleaned; `categories` is a JSON array of readable labels
 *   ("restaurant", "italian restaurant", "dentist") and `category_text` the same labels
 *   joined by spaces for full-text search.
 * - `places_rtree`: R*Tree on coordinates (a point is a degenerate box), kept in sync by triggers.
 * - `places_fts`: FTS5 over name, categories, cuisine, brand and description (external
 *   content, diacritics folded, prefix indexes for 2 and 3 characters), kept in sync by triggers.
 * - `localities`: the locality and postcode index built from imported places (centroid of
 *   the places grouped by city, or by postcode), for offline geocoding of "München" or "9490".
 */
export const places: Migration = {
  name: "places: local places index with R*Tree, FTS5 and localities",
  up(db) {
    db.exec(`
      CREATE TABLE place_sources (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('osm', 'overture', 'csv', 'ndjson')),
        name TEXT NOT NULL UNIQUE,          -- the file name, e.g. liechtenstein-2026-03-29.osm.pbf
        data_date TEXT,                     -- date of the data itself (YYYY-MM-DD), when known
        licence TEXT NOT NULL,
        attribution TEXT NOT NULL,
        imported_at TEXT NOT NULL,
        place_count INTEGER NOT NULL DEFAULT 0
      ) STRICT;

      CREATE TABLE places (
        id INTEGER PRIMARY KEY,             -- rowid shared with places_rtree and places_fts
        place_id TEXT NOT NULL UNIQUE,
        source_id INTEGER NOT NULL REFERENCES place_sources(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        address TEXT NOT NULL,              -- formatted one-line address (never empty: falls back to city/country)
        street TEXT,
        housenumber TEXT,
        postcode TEXT,
        city TEXT,
        country TEXT,                       -- ISO 3166-1 alpha-2 when known
        lat REAL NOT NULL,
        lng REAL NOT NULL,
        website TEXT,
        phone TEXT,
        email TEXT,
        socials TEXT,                       -- JSON {linkedin?, facebook?, twitter?, instagram?} or NULL
        rating REAL,                        -- 0..5 or NULL when the source has none
        categories TEXT NOT NULL DEFAULT '[]', -- JSON array of readable labels
        category_text TEXT NOT NULL DEFAULT '',
        cuisine TEXT,
        brand TEXT,
        description TEXT,
        opening_hours TEXT,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX places_by_source ON places(source_id);

      CREATE VIRTUAL TABLE places_rtree USING rtree(id, min_lat, max_lat, min_lng, max_lng);

      CREATE VIRTUAL TABLE places_fts USING fts5(
        name, categories, cuisine, brand, description,
        content = 'places', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2',
        prefix = '2 3'
      );

      CREATE TRIGGER places_ai AFTER INSERT ON places BEGIN
        INSERT INTO places_rtree (id, min_lat, max_lat, min_lng, max_lng) VALUES (new.id, new.lat, new.lat, new.lng, new.lng);
        INSERT INTO places_fts (rowid, name, categories, cuisine, brand, description)
          VALUES (new.id, new.name, new.category_text, coalesce(new.cuisine, ''), coalesce(new.brand, ''), coalesce(new.description, ''));
      END;
      CREATE TRIGGER places_ad AFTER DELETE ON places BEGIN
        DELETE FROM places_rtree WHERE id = old.id;
        INSERT INTO places_fts (places_fts, rowid, name, categories, cuisine, brand, description)
          VALUES ('delete', old.id, old.name, old.category_text, coalesce(old.cuisine, ''), coalesce(old.brand, ''), coalesce(old.description, ''));
      END;
      CREATE TRIGGER places_au AFTER UPDATE ON places BEGIN
        UPDATE places_rtree SET min_lat = new.lat, max_lat = new.lat, min_lng = new.lng, max_lng = new.lng WHERE id = new.id;
        INSERT INTO places_fts (places_fts, rowid, name, categories, cuisine, brand, description)
          VALUES ('delete', old.id, old.name, old.category_text, coalesce(old.cuisine, ''), coalesce(old.brand, ''), coalesce(old.description, ''));
        INSERT INTO places_fts (rowid, name, categories, cuisine, brand, description)
          VALUES (new.id, new.name, new.category_text, coalesce(new.cuisine, ''), coalesce(new.brand, ''), coalesce(new.description, ''));
      END;

      CREATE TABLE localities (
        kind TEXT NOT NULL CHECK (kind IN ('city', 'postcode')),
        key TEXT NOT NULL,                  -- normalised: lower case, diacritics folded, spaces collapsed
        name TEXT NOT NULL,                 -- as written most often in the data ("München", "9490")
        city TEXT,                          -- for postcodes: the most common city with that postcode
        country TEXT,
        lat REAL NOT NULL,
        lng REAL NOT NULL,
        place_count INTEGER NOT NULL,
        PRIMARY KEY (kind, key, country)
      ) STRICT;
    `);
  },
};
