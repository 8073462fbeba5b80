import type { Migration } from "./migration.js";

/**
 * The lead search's spatially clustered term index, keyed (cell, term, place).
 *
 * Why: the first search of a common keyword had to walk every full-text match in the
 * country (FTS-first) or read and tokenize every place in the circle (box-first): 0.2 to
 * 1.5 s at a million places. Keyed (cell, term, place), a 5 km search is a handful of
 * short B-tree ranges that already hold everything ranking needs.
 *
 * Since migration 019 the packed postings are built from `places` and this table is gone.
 * It is created here empty, as a step of the schema's history: until then triggers filled
 * it through a JavaScript table-valued function (`place_terms_of`) that every connection had
 * to register before it could write a place. Nothing reads it; migration 019 drops it and
 * marks every place's cell for the rebuild. A database that ran this migration's first form
 * keeps those triggers until migration 015 drops them, and no migration in between writes
 * places.
 */
export const placeTerms: Migration = {
  name: "places: spatially clustered term index for the lead search",
  up(db) {
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
    `);
  },
};
