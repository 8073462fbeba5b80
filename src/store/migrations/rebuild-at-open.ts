import type { Db } from "../connection.js";

/** Derived place data that opening the instance rebuilds when a migration asked for it. */
export type RebuildAtOpen = "postings" | "localities" | "label-words";

/**
 * Asks opening the instance to rebuild `what` (`src/places/store/rebuild-requests.ts`): the
 * search's packed postings of every cell listed stale, the geocoder's localities, or the
 * words of places' labels.
 *
 * Why: a migration stands alone. It changes the schema and marks what is out of date, and
 * never runs the code that rebuilds it, which follows today's schema and rules, not those of
 * the migration's day (a migration that called a repository broke when the repository
 * moved on, and kept dead branches alive in it). The request is a row, so a process killed
 * before the rebuild ends leaves it for the next open. The table is made by the first
 * migration that asks (013 on a new database; a database past every such migration never
 * needs it).
 */
export function rebuildAtOpen(db: Db, what: RebuildAtOpen): void {
  db.exec("CREATE TABLE IF NOT EXISTS place_rebuilds (what TEXT PRIMARY KEY) STRICT");
  db.prepare("INSERT OR IGNORE INTO place_rebuilds (what) VALUES (?)").run(what);
}
