import { registerPlaceTermsFunction } from "../../places/store/place-terms.js";
import type { Migration } from "./migration.js";

/**
 * The lead search's spatially clustered term index (see `src/store/place-terms.ts`).
 *
 * Why: the first search of a common keyword had to walk every full-text match in the
 * country (FTS-first) or read and tokenize every place in the circle (box-first): 0.2 to
 * 1.5 s at a million places. Keyed (cell, term, place), a 5 km search is a handful of
 * short B-tree ranges that already hold everything ranking needs.
 *
 * WITHOUT ROWID: the table is its own primary-key index. No index on `place`: the
 * triggers delete a place's rows by their full key, recomputed from the old row. The
 * backfill goes through the same function as the triggers. Nullable fields are passed as
 * '' (a NULL argument of a table-valued function matches no row at all).
 */
export const placeTerms: Migration = {
  name: "places: spatially clustered term index for the lead search",
  up(db) {
    registerPlaceTermsFunction(db);
    db.exec(`
      CREATE TABLE place_terms (
        cell INTEGER NOT NULL,   -- grid cell of the place (CELL_LAT_DEG × CELL_LNG_DEG)
        term TEXT NOT NULL,      -- one word of name, categories, cuisine, brand or description, folded
        place INTEGER NOT NULL,  -- places.id
        lat REAL NOT NULL,
        lng REAL NOT NULL,
        tf INTEGER NOT NULL,     -- the word's count per field, packed base 1024 (-1: too long to pack)
        words INTEGER NOT NULL,  -- the fields' word counts, packed base 1024 (-1: too long to pack)
        PRIMARY KEY (cell, term, place)
      ) STRICT, WITHOUT ROWID;

      CREATE TRIGGER place_terms_ai AFTER INSERT ON places BEGIN
        INSERT INTO place_terms (cell, term, place, lat, lng, tf, words)
          SELECT cell, term, new.id, new.lat, new.lng, tf, words
            FROM place_terms_of(new.lat, new.lng, new.name, new.category_text, coalesce(new.cuisine, ''), coalesce(new.brand, ''), coalesce(new.description, ''));
      END;
      CREATE TRIGGER place_terms_ad AFTER DELETE ON places BEGIN
        DELETE FROM place_terms WHERE (cell, term, place) IN
          (SELECT cell, term, old.id FROM place_terms_of(old.lat, old.lng, old.name, old.category_text, coalesce(old.cuisine, ''), coalesce(old.brand, ''), coalesce(old.description, '')));
      END;
      CREATE TRIGGER place_terms_au AFTER UPDATE OF lat, lng, name, category_text, cuisine, brand, description ON places BEGIN
        DELETE FROM place_terms WHERE (cell, term, place) IN
          (SELECT cell, term, old.id FROM place_terms_of(old.lat, old.lng, old.name, old.category_text, coalesce(old.cuisine, ''), coalesce(old.brand, ''), coalesce(old.description, '')));
        INSERT INTO place_terms (cell, term, place, lat, lng, tf, words)
          SELECT cell, term, new.id, new.lat, new.lng, tf, words
            FROM place_terms_of(new.lat, new.lng, new.name, new.category_text, coalesce(new.cuisine, ''), coalesce(new.brand, ''), coalesce(new.description, ''));
      END;

      INSERT INTO place_terms (cell, term, place, lat, lng, tf, words)
        SELECT t.cell, t.term, p.id, p.lat, p.lng, t.tf, t.words
          FROM places p, place_terms_of(p.lat, p.lng, p.name, p.category_text, coalesce(p.cuisine, ''), coalesce(p.brand, ''), coalesce(p.description, '')) t;
    `);
  },
};
