import type { Statement } from "better-sqlite3";
import { cellOf } from "./geo-grid.js";
import type { Db } from "../../store/db.js";
import { CONTENT_COLUMNS, type BatchResult, type PlaceWrite } from "./places.js";

/**
 * A replacement import's places until the whole file is read (`places import --replace`,
 * `places download --import`, `places update`): the region's old places stay in the index,
 * searchable, until `swapInto` puts the new ones in their place in the caller's transaction.
 *
 * The staged places are a TEMP table: private to the importing connection, in a temporary
 * file (better-sqlite3 builds SQLite with TEMP_STORE=1), never read by a search or by the
 * postings rebuild, written without the database's write lock (a transaction that writes
 * only the temp schema takes none), and gone with the process if it is killed: an
 * interrupted replacement leaves nothing behind to clean up.
 *
 * The swap is a diff, not a delete and re-insert: the old places the file no longer has
 * go, changed ones are updated in place (their rowids, which the postings hold, stay),
 * new ones are inserted in grid-cell order. The triggers on `places` list the cells it
 * touched as stale (migration 019), so the search computes those cells from their places
 * until the postings are rebuilt: exact at every moment. An unchanged file's swap writes
 * nothing but its source row.
 */

/** The staged columns: a place's content without its source (the swap sets it). */
const STAGED_COLUMNS = CONTENT_COLUMNS.filter((c) => c !== "source_id");

export interface SwapResult extends BatchResult {
  /** The target source's places the file no longer has. */
  removed: number;
}

export class PlaceStaging {
  private readonly insert: Statement;

  constructor(private readonly db: Db) {
    // Untyped columns keep each value as written, so the swap's IS NOT comparisons are exact.
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS places_staging (place_id TEXT PRIMARY KEY, cell INTEGER NOT NULL, ${STAGED_COLUMNS.join(", ")})`);
    this.insert = db.prepare(
      `INSERT OR REPLACE INTO temp.places_staging (place_id, cell, ${STAGED_COLUMNS.join(", ")}) VALUES (?, ?, ${STAGED_COLUMNS.map(() => "?").join(", ")})`,
    );
  }

  /** Start (or end) a replacement with nothing staged. */
  clear(): void {
    this.db.exec("DELETE FROM temp.places_staging");
  }

  /** Stage one batch (a deferred transaction on the temp schema: other writers never wait for it). */
  add(places: readonly PlaceWrite[]): void {
    this.db.transaction(() => {
      for (const p of places) {
        // In STAGED_COLUMNS order.
        this.insert.run(
          p.placeId, cellOf(p.lat, p.lng), p.name, p.address, p.street, p.housenumber, p.postcode, p.city, p.country, p.lat, p.lng,
          p.website, p.phone, p.email, p.socials, p.rating, p.categories, p.categoryText, p.categoryTags, p.cuisine, p.brand,
          p.description, p.openingHours, p.provenance,
        );
      }
    })();
  }

  /**
   * Make `sourceId`'s places exactly the staged ones: remove the others, update the changed
   * (a place of another source with the same place ID moves to this one, as a plain import
   * does), insert the new. Must run inside the caller's immediate transaction, with
   * whatever else the swap must make visible at once (the source row, the localities).
   */
  swapInto(sourceId: number, now: string): SwapResult {
    if (!this.db.inTransaction) throw new Error("PlaceStaging.swapInto runs inside the swap's transaction");
    const staged = this.db.prepare("SELECT count(*) FROM temp.places_staging").pluck().get() as number;
    const removed = this.db
      .prepare("DELETE FROM places WHERE source_id = ? AND place_id NOT IN (SELECT place_id FROM temp.places_staging)")
      .run(sourceId).changes;
    const updated = this.db
      .prepare(
        `UPDATE places SET source_id = ?, ${STAGED_COLUMNS.map((c) => `${c} = s.${c}`).join(", ")}, updated_at = ?
           FROM temp.places_staging s
          WHERE places.place_id = s.place_id
            AND (places.source_id IS NOT ? OR ${STAGED_COLUMNS.map((c) => `places.${c} IS NOT s.${c}`).join(" OR ")})`,
      )
      .run(sourceId, now, sourceId).changes;
    const added = this.db
      .prepare(
        `INSERT INTO places (place_id, source_id, ${STAGED_COLUMNS.join(", ")}, updated_at)
         SELECT s.place_id, ?, ${STAGED_COLUMNS.map((c) => `s.${c}`).join(", ")}, ? FROM temp.places_staging s
          WHERE NOT EXISTS (SELECT 1 FROM places p WHERE p.place_id = s.place_id)
          ORDER BY s.cell`,
      )
      .run(sourceId, now).changes;
    return { added, updated, unchanged: staged - updated - added, removed };
  }
}
