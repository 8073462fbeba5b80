import type { Migration } from "./migration.js";

/**
 * Import bookkeeping for the places index.
 *
 * - `place_sources.status`: 'importing' while a file is being imported, 'complete' after,
 *   'failed' if it stopped half-way; so `outreach places stats` can say that a source is
 *   incomplete (each batch is its own transaction: a failure keeps the batches already
 *   written, consistent but partial, and the next import of the file completes it).
 * - `places.provenance`: JSON array of the upstream records a place came from
 *   (Overture's `sources[]`: dataset, record id, licence where given), which the
 *   Overture licence asks us to keep.
 */
export const placeImports: Migration = {
  name: "places: import status per source, provenance per place",
  up(db) {
    db.exec(`
      ALTER TABLE place_sources ADD COLUMN status TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('importing', 'complete', 'failed'));
      ALTER TABLE places ADD COLUMN provenance TEXT;
    `);
  },
};
