import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { systemClock, type Clock } from "../core/clock.js";
import { loadKeyring } from "../core/crypto.js";
import { startCheckpointer, type Checkpointer } from "../store/checkpointer.js";
import { DATABASE_FILE_NAME, openDatabase } from "../store/db.js";
import { loadServerConfig, type ServerConfig } from "./config.js";
import { backfillContactNgrams } from "./contacts/contact-ngram-backfill.js";
import { generateDkimKey, type DkimKeyGenerator } from "./sending/dkim-keys.js";
import { createServices, type Services } from "./index.js";

/** `--data-dir`, else `OUTREACH_DATA_DIR`, else `$XDG_DATA_HOME/outreach` (`~/.local/share/outreach`). */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.OUTREACH_DATA_DIR) return resolve(env.OUTREACH_DATA_DIR);
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return resolve(base, "outreach");
}

/**
 * `$XDG_CACHE_HOME/outreach` (`~/.cache/outreach`): what the program derives from its own
 * packages and may rebuild at any time (the lead search's category vocabulary), shared
 * by every data directory.
 */
export function resolveCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "outreach");
}

export function databasePath(dataDir: string): string {
  return join(dataDir, DATABASE_FILE_NAME);
}

/** One opened data directory: its database, keys, settings and services. Close it once. */
export interface Instance {
  dataDir: string;
  services: Services;
  /**
   * Checkpoint the WAL from a background thread instead of inside writes (a long-running
   * server: `store/checkpointer.ts`). Stopped by `close()` at the latest.
   */
  startBackgroundCheckpoints(log: (line: string) => void): Checkpointer;
  close(): void;
}

export interface OpenInstanceOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Overrides of settings that would otherwise come from the environment (tests). */
  config?: Partial<ServerConfig>;
  /** The DKIM key generator of new sending domains (tests pass a fast one). */
  dkimKeys?: DkimKeyGenerator;
}

export function openInstance(options: OpenInstanceOptions): Instance {
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const config = { ...loadServerConfig(env), ...options.config };
  const db = openDatabase(databasePath(options.dataDir));
  try {
    const keyring = loadKeyring(options.dataDir, env, clock.now());
    const services = createServices({
      db,
      clock,
      keyring,
      config,
      dataDir: options.dataDir,
      dkimKeys: options.dkimKeys ?? generateDkimKey,
      cacheDir: resolveCacheDir(env),
    });
    // Contacts stored before the 4/5-gram index get theirs; the places index gets what
    // migrations left it to rebuild and category tags for places stored before them (once;
    // no-ops afterwards).
    backfillContactNgrams({ db, keys: services.keys });
    services.placesImport.catchUp();
    let closed = false;
    let checkpointer: Checkpointer | undefined;
    return {
      dataDir: options.dataDir,
      services,
      startBackgroundCheckpoints(log) {
        checkpointer ??= startCheckpointer(db, databasePath(options.dataDir), log);
        return checkpointer;
      },
      close() {
        if (closed) return;
        closed = true;
        void checkpointer?.stop();
        services.enrichment.close();
        db.close();
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
