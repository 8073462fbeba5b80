import type { Db } from "../../store/connection.js";
import type { RebuildAtOpen } from "../../store/migrations/rebuild-at-open.js";

/**
 * What migrations asked opening the instance to rebuild (`rebuildAtOpen`: rows of
 * `place_rebuilds`, a table the first migration that asks makes). Each request is cleared
 * once its rebuild is done, so a process killed half-way leaves it for the next open.
 */
export class RebuildRequests {
  constructor(private readonly db: Db) {}

  pending(): Set<RebuildAtOpen> {
    const table = this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'place_rebuilds'").get();
    if (!table) return new Set();
    return new Set(this.db.prepare("SELECT what FROM place_rebuilds").pluck().all() as RebuildAtOpen[]);
  }

  done(what: RebuildAtOpen): void {
    this.db.prepare("DELETE FROM place_rebuilds WHERE what = ?").run(what);
  }
}
