import type { Keyring } from "../core/crypto.js";
import type { Db } from "../store/db.js";
import { EncryptedRowsRepo, type EncryptedRow, type EncryptedTableShape } from "../store/encrypted-rows.js";
import type { ServiceDeps } from "./deps.js";

/**
 * One set of encrypted columns the rotation re-encrypts. Features register theirs in
 * `createServices` (contacts, sending domains' DKIM private keys).
 */
export interface EncryptedColumnSet extends EncryptedTableShape {
  /** A name for progress lines. */
  name: string;
  /** The AAD a column of a row was encrypted with. */
  aad(row: EncryptedRow, column: string): string;
  /** Encryption purpose passed to the keyring (default "field-encryption"). */
  purpose?: string;
  /**
   * Called inside the batch's transaction after a row was rewritten, with its plaintexts:
   * recompute what else is keyed by the master key (blind indexes, n-grams).
   */
  afterRewrite?(row: EncryptedRow, plaintexts: Record<string, string | null>, keyring: Keyring): void;
}

/** Where the store declares a table's encrypted columns: its table, row id, key id and ciphertext columns. */
export type StoredColumns = Pick<EncryptedTableShape, "table" | "idColumn" | "keyIdColumn" | "columns">;

/** A column set over the columns the store declares, with what the rotation needs besides (name, context, AAD). */
export function columnSetOver(stored: StoredColumns, set: Omit<EncryptedColumnSet, keyof StoredColumns>): EncryptedColumnSet {
  return { table: stored.table, idColumn: stored.idColumn, keyIdColumn: stored.keyIdColumn, columns: [...stored.columns], ...set };
}

/** A column set of a table that names its rows by `id` and their master key by `key_id` (every workspace table does). */
export function idKeyedColumnSet(set: Omit<EncryptedColumnSet, "idColumn" | "keyIdColumn">): EncryptedColumnSet {
  return { idColumn: "id", keyIdColumn: "key_id", ...set };
}

export interface RotationProgress {
  set: string;
  done: number;
  remaining: number;
}

export interface RotationOptions {
  batchSize?: number;
  onProgress?(progress: RotationProgress): void;
  /** Called between batches; the default yields to the event loop so a server in this process keeps serving. */
  pause?(): Promise<void>;
}

export interface RotationResult {
  keyId: string;
  rewritten: Record<string, number>;
  /** Rows still under another key (0 on success): retire old keys only then. */
  remaining: number;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Re-encrypts every registered column set under the keyring's current key, in batches:
 * each batch is one short immediate transaction (rows found by key id, each rewritten
 * under a guard so a concurrent update is never overwritten), and between batches the
 * event loop runs, so reads and writes continue. Old keys must stay loaded until
 * `remaining` is 0.
 */
export class KeyRotationService {
  private readonly sets: EncryptedColumnSet[] = [];
  private readonly rows: EncryptedRowsRepo;

  private readonly db: Db;

  constructor(deps: Pick<ServiceDeps, "db">) {
    this.db = deps.db;
    this.rows = new EncryptedRowsRepo(deps.db);
  }

  register(set: EncryptedColumnSet): void {
    if (this.sets.some((s) => s.name === set.name)) throw new Error(`encrypted column set ${set.name} is already registered`);
    this.sets.push(set);
  }

  get registered(): readonly EncryptedColumnSet[] {
    return this.sets;
  }

  /** Rows not under `keyId`, per set. */
  pendingCounts(keyId: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const set of this.sets) {
      out[set.name] = this.rows.countByKey(set).filter((r) => r.keyId !== keyId).reduce((n, r) => n + r.rows, 0);
    }
    return out;
  }

  async reencryptAll(keyring: () => Keyring, options: RotationOptions = {}): Promise<RotationResult> {
    const batchSize = options.batchSize ?? 200;
    const pause = options.pause ?? yieldToEventLoop;
    const target = keyring().currentId;
    const rewritten: Record<string, number> = {};
    for (const set of this.sets) {
      rewritten[set.name] = 0;
      let afterId = "";
      for (;;) {
        const ring = keyring();
        if (ring.currentId !== target) throw new Error(`the current key changed from ${target} to ${ring.currentId} during the rotation; run it again`);
        const batch = this.rows.pending(set, target, afterId, batchSize);
        if (batch.length === 0) break;
        afterId = batch[batch.length - 1]![set.idColumn]!;
        // Decrypt and encrypt outside the transaction (CPU only), then write briefly.
        const prepared = batch.map((row) => this.reencryptRow(set, row, ring));
        const count = this.db
          .transaction(() => {
            let n = 0;
            for (const { row, updated, plaintexts } of prepared) {
              if (!this.rows.rewrite(set, row, updated, target)) continue;
              set.afterRewrite?.({ ...row, ...updated }, plaintexts, ring);
              n++;
            }
            return n;
          })
          .immediate();
        rewritten[set.name] = rewritten[set.name]! + count;
        options.onProgress?.({ set: set.name, done: rewritten[set.name]!, remaining: this.pendingCounts(target)[set.name]! });
        await pause();
      }
    }
    const remaining = Object.values(this.pendingCounts(target)).reduce((a, b) => a + b, 0);
    return { keyId: target, rewritten, remaining };
  }

  private reencryptRow(set: EncryptedColumnSet, row: EncryptedRow, keyring: Keyring) {
    const updated: EncryptedRow = {};
    const plaintexts: Record<string, string | null> = {};
    for (const column of set.columns) {
      const ct = row[column];
      if (ct === null || ct === undefined) {
        updated[column] = null;
        plaintexts[column] = null;
        continue;
      }
      const aad = set.aad(row, column);
      const plain = keyring.decrypt(ct, aad, set.purpose);
      plaintexts[column] = plain;
      updated[column] = keyring.encrypt(plain, aad, set.purpose);
    }
    return { row, updated, plaintexts };
  }
}
