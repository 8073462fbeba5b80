import { chmodSync, closeSync, existsSync, openSync, statSync } from "node:fs";

/** Owner read and write only: the database holds personal data (encrypted or not, see docs/security.md). */
export const PRIVATE_FILE_MODE = 0o600;

/** The files SQLite keeps beside a database in WAL mode, and the journal of a backup copy. */
const COMPANIONS = ["-wal", "-shm", "-journal"];

/**
 * Make `file` (created if missing) and its existing companions private before SQLite
 * opens it. SQLite creates `-wal`, `-shm` and `-journal` with the mode of the database
 * file, so a database created 0600 keeps every companion 0600 too. Creating it ourselves
 * with that mode does what a umask around the open would, without changing the
 * process-wide umask under anything else that creates files meanwhile. Files an older
 * version left 0644 are tightened; one we may not chmod (another owner) is left as it is.
 */
export function preparePrivateFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  for (const path of [file, ...COMPANIONS.map((suffix) => file + suffix)]) {
    if (!existsSync(path)) continue;
    try {
      if ((statSync(path).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE);
    } catch {
      // Not ours to change (or gone meanwhile): SQLite will say if it cannot open it.
    }
  }
}
