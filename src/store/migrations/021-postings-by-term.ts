import type { Migration } from "./migration.js";

/**
 * The packed postings clustered by (term, cell) instead of (cell, term), with the index
 * now on (cell, term).
 *
 * Why: every search of 10 km or more reads a word's postings per range of consecutive
 * cells (`PlacePostingsRepo.scanRanges`), and small circles can too. Through the old
 * (term, cell) index each non-empty cell of a range cost one more B-tree lookup into the
 * table: at a million places a 100 km circle's ~2,000 BLOBs took ~6 ms of seeks. Clustered
 * by term, a range of cells is one seek and a run of neighbouring rows (~2 ms). Reading by
 * cell (prefixes with many words, the typo correction, a stale cell's deletion) goes
 * through the (cell, term) index. Same size: the table and its index swap keys.
 */
export const postingsByTerm: Migration = {
  name: "places: packed postings clustered by term and cell",
  up(db) {
    db.exec(`
      CREATE TABLE place_postings_by_term_cell (
        term TEXT NOT NULL,
        cell INTEGER NOT NULL,
        postings BLOB NOT NULL,  -- varint records [place, lat, lng, fields, flags], by place (migration 019)
        PRIMARY KEY (term, cell)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO place_postings_by_term_cell (term, cell, postings) SELECT term, cell, postings FROM place_postings ORDER BY term, cell;
      DROP TABLE place_postings;
      ALTER TABLE place_postings_by_term_cell RENAME TO place_postings;
      CREATE INDEX place_postings_by_cell ON place_postings (cell, term);
    `);
  },
};
