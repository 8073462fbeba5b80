import type { Migration } from "./migration.js";
import { rebuildAtOpen } from "./rebuild-at-open.js";

/**
 * The lead search's term index packed per (cell, word) for reading (see
 * `src/places/store/place-postings.ts`), and the list of cells whose packing is out of date.
 *
 * Why: at a million places the slowest 5 % of 5 km searches read ~4,000 `place_terms`
 * rows and spent most of their 10–18 ms turning rows into JavaScript values; ~85 BLOBs
 * decoded as typed arrays carry the same postings. The (term, cell) index serves large
 * circles, whose tens of thousands of cells are mostly empty: a 100 km circle is ~180
 * ranges of consecutive cells per word instead of ~26,000 seeks (30 → 5–10 ms of SQLite).
 *
 * The stale list is kept by triggers on `place_terms` (not on `places`): whatever changes
 * a cell's term rows marks that cell, whichever write caused it. Backfill: every cell of
 * the existing index is marked stale, and opening the instance rebuilds them (`rebuildAtOpen`).
 */
export const placePostings: Migration = {
  name: "places: term index packed per cell and word for the lead search",
  up(db) {
    db.exec(`
      CREATE TABLE place_postings (
        cell INTEGER NOT NULL,
        term TEXT NOT NULL,
        postings BLOB NOT NULL,  -- float64 LE records [place, lat, lng, tf, words], by place
        PRIMARY KEY (cell, term)
      ) STRICT, WITHOUT ROWID;
      -- Large circles: a word's cells in grid-row ranges instead of one seek per cell.
      CREATE INDEX place_postings_by_term ON place_postings (term, cell);
      CREATE TABLE place_cells_stale (cell INTEGER PRIMARY KEY) STRICT;

      CREATE TRIGGER place_terms_stale_ai AFTER INSERT ON place_terms BEGIN
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (new.cell);
      END;
      CREATE TRIGGER place_terms_stale_ad AFTER DELETE ON place_terms BEGIN
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (old.cell);
      END;
      CREATE TRIGGER place_terms_stale_au AFTER UPDATE ON place_terms BEGIN
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (old.cell);
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (new.cell);
      END;

      INSERT INTO place_cells_stale (cell) SELECT DISTINCT cell FROM place_terms;
    `);
    rebuildAtOpen(db, "postings");
  },
};
