import type { Migration } from "./migration.js";
import { placeCellSql as cell } from "./place-cell-sql.js";
import { rebuildAtOpen } from "./rebuild-at-open.js";

/**
 * The packed postings (`place_postings`, migration 013) become the lead search's only term
 * index: `place_terms` and its triggers go, and the postings of a cell are rebuilt from
 * the `places` of that cell (`src/places/store/place-postings.ts`).
 *
 * Why: both tables held every (cell, word, place) posting. At a million places
 * `place_terms` was 140 MiB of the database's 624, and its per-row triggers (a
 * JavaScript table-valued function, then random inserts into a B-tree clustered by cell)
 * were most of an import's write time; the search read it only for cells whose packing
 * was out of date, which it can as well compute from those cells' places.
 *
 * `places_by_cell` indexes places by their grid cell (`cellSql`: the search's `cellOf`
 * as plain SQL arithmetic, so no function of ours is needed to write places or check the
 * index), so a cell's places are one index range. Triggers on `places` list the cells a write
 * touches in `place_cells_stale`, as the `place_terms` triggers did.
 *
 * The postings are re-encoded: varints and coordinates to 1e-7 degrees, ~11 bytes a
 * posting instead of 40 as float64s (`encodePostings`). Every place's cell is marked stale
 * and opening the instance rebuilds them from their places (once, ~a minute at a million places).
 *
 * The R*Tree goes too: its per-row inserts were two thirds of an import's write time
 * (bench/country-import.js) and 51 MiB at a million places, for two readers that
 * `places_by_cell` serves as well, one index range per grid row of a box: the search's
 * fallback for polar circles and the geocoder's "is there data near this city".
 */
export const postingsFromPlaces: Migration = {
  name: "places: packed postings rebuilt from places, places indexed by grid cell; place_terms and the R*Tree dropped",
  up(db) {
    db.exec(`
      DROP TRIGGER IF EXISTS place_terms_ai;
      DROP TRIGGER IF EXISTS place_terms_ad;
      DROP TRIGGER IF EXISTS place_terms_au;
      DROP TRIGGER IF EXISTS place_terms_stale_ai;
      DROP TRIGGER IF EXISTS place_terms_stale_ad;
      DROP TRIGGER IF EXISTS place_terms_stale_au;
      DROP TABLE place_terms;
      DROP TRIGGER IF EXISTS places_rtree_ai;
      DROP TRIGGER IF EXISTS places_rtree_ad;
      DROP TRIGGER IF EXISTS places_rtree_au;
      DROP TABLE places_rtree;

      CREATE INDEX places_by_cell ON places (${cell("")});

      CREATE TRIGGER places_stale_ai AFTER INSERT ON places BEGIN
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (${cell("new.")});
      END;
      CREATE TRIGGER places_stale_ad AFTER DELETE ON places BEGIN
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (${cell("old.")});
      END;
      CREATE TRIGGER places_stale_au AFTER UPDATE OF lat, lng, name, category_text, cuisine, brand, description, category_tags ON places BEGIN
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (${cell("old.")});
        INSERT OR IGNORE INTO place_cells_stale (cell) VALUES (${cell("new.")});
      END;

      DELETE FROM place_postings;
      INSERT OR IGNORE INTO place_cells_stale (cell) SELECT ${cell("")} FROM places;
    `);
    rebuildAtOpen(db, "postings");
  },
};
