import { readdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { KEY_FILE_NAME } from "../core/crypto.js";
import { DATABASE_FILE_NAME } from "../store/db.js";

/**
 * What a path named as a data directory is, before anything is written there:
 * - `data`: a data directory (it holds our database or our key);
 * - `missing`, `empty`: a new data directory will be made there;
 * - `file`: it (or a folder above it, `blocker`) is a file, so no directory can be made;
 * - `foreign`: a directory that holds other things, which a data directory must not be
 *   mixed into (a mistyped `--data-dir ~/Documents`).
 */
export type DataDirState = { kind: "data" | "missing" | "empty" | "foreign" } | { kind: "file"; blocker: string };

/** Our own names in a data directory: either one marks it as ours. */
const OWN_MARKERS = new Set([DATABASE_FILE_NAME, KEY_FILE_NAME]);

export function dataDirState(dir: string): DataDirState {
  const found = nearestExisting(dir);
  if (!found.isDirectory) return { kind: "file", blocker: found.path };
  if (found.path !== dir) return { kind: "missing" };
  const entries = readdirSync(dir);
  if (entries.length === 0) return { kind: "empty" };
  return entries.some((name) => OWN_MARKERS.has(name)) ? { kind: "data" } : { kind: "foreign" };
}

/** `path` or the nearest folder above it that exists, and whether that is a directory. */
function nearestExisting(path: string): { path: string; isDirectory: boolean } {
  for (let current = path; ; current = dirname(current)) {
    try {
      return { path: current, isDirectory: statSync(current).isDirectory() };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTDIR: a file stands above; keep walking up to find it.
      if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(current) === current) throw err;
    }
  }
}
