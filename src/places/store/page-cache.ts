import type { Db } from "../../store/connection.js";

/**
 * The page cache of a bulk pass (an import's writes, a rebuild of the term index): both
 * touch pages all over a table larger than the connection's usual 64 MiB (db.ts), and
 * fall off sharply once those pages no longer stay in memory (bench/country-import.js).
 */
export const BULK_PAGE_CACHE_KIB = 256 * 1024;

/**
 * Raise the connection's page cache to at least `kib` until the returned function puts it
 * back (a larger one is left as it is: a pass inside another keeps the outer's).
 */
export function raisePageCache(db: Db, kib = BULK_PAGE_CACHE_KIB): () => void {
  const previous = db.pragma("cache_size", { simple: true }) as number;
  // SQLite's unit for a size: negative numbers are KiB.
  db.pragma(`cache_size = ${Math.min(previous, -kib)}`);
  return () => {
    if (db.open) db.pragma(`cache_size = ${previous}`);
  };
}
