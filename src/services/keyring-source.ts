import { statSync } from "node:fs";
import { join } from "node:path";
import { KEY_FILE_NAME, Keyring, loadKeyring } from "../core/crypto.js";
import type { ServiceDeps } from "./deps.js";

/**
 * The keyring, kept in step with the data directory's key file. `outreach admin keys
 * rotate` may run in another process while a server serves: it adds a new current key
 * to the file first, and every later encryption here must use it (and every row it
 * re-encrypts must stay readable), so the file is re-read when it changes. A keyring
 * that came from `OUTREACH_SECRET_KEY` is never replaced by the file's.
 */
export class KeyringSource {
  private current: Keyring;
  private seenMtimeMs: number | undefined;
  private checkedAt = 0;
  private readonly path: string;

  constructor(deps: Pick<ServiceDeps, "keyring" | "dataDir">) {
    this.current = deps.keyring;
    this.path = join(deps.dataDir, KEY_FILE_NAME);
    this.seenMtimeMs = this.mtime();
  }

  private mtime(): number | undefined {
    try {
      return statSync(this.path).mtimeMs;
    } catch {
      return undefined;
    }
  }

  get(): Keyring {
    // A stat per call would cost more than the decryption it guards: look at most every 200 ms.
    const now = Date.now();
    if (now - this.checkedAt >= 200) this.refresh();
    return this.current;
  }

  /** Re-read the key file now if it changed since it was last read. */
  refresh(): Keyring {
    this.checkedAt = Date.now();
    const mtime = this.mtime();
    if (mtime !== undefined && mtime !== this.seenMtimeMs) {
      this.seenMtimeMs = mtime;
      const fromFile = loadKeyring(join(this.path, ".."), {});
      // Only follow the file if this keyring came from it (it shares a key with it).
      if (this.current.keyIds.some((id) => fromFile.has(id))) this.current = fromFile;
    }
    return this.current;
  }

  /** Use this keyring from now on (the rotation in this process). */
  replace(keyring: Keyring): void {
    this.current = keyring;
    this.seenMtimeMs = this.mtime();
  }
}
