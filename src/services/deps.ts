import type { Clock } from "../core/clock.js";
import type { Keyring } from "../core/crypto.js";
import type { Db } from "../store/db.js";
import type { ServerConfig } from "./config.js";
import type { DkimKeyGenerator } from "./sending/dkim-keys.js";

/**
 * What the services are built from: one opened data directory and the implementations
 * that tests and benches may replace. Services get what they need of it by name (every
 * constructor takes one object of named dependencies), never an HTTP event or a terminal.
 */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  /** The keyring as loaded at start; services read the current one through `KeyringSource`. */
  keyring: Keyring;
  config: ServerConfig;
  dataDir: string;
  /** Makes a sending domain's DKIM key pair (2048-bit RSA by default; tests pass a fast one). */
  dkimKeys: DkimKeyGenerator;
  /** Derived data shared by data directories (see `resolveCacheDir`); none: kept in memory only. */
  cacheDir?: string;
}
