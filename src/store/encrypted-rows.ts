import type { Db } from "./db.js";

/**
 * Generic access to rows holding ciphertexts, for the key rotation. Table and column
 * names come from the code's registry (never from input) and are checked to be plain
 * identifiers before they are put into SQL.
 */
export interface EncryptedTableShape {
  table: string;
  idColumn: string;
  keyIdColumn: string;
  /** Ciphertext columns (nullable ones are skipped when NULL). */
  columns: readonly string[];
  /** Further columns the AAD is built from (e.g. the workspace id). */
  contextColumns: readonly string[];
}

export type EncryptedRow = Record<string, string | null>;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function checked(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
  return name;
}

export class EncryptedRowsRepo {
  constructor(private readonly db: Db) {}

  /** Up to `limit` rows not yet under `currentKeyId`, in id order after `afterId`. */
  pending(shape: EncryptedTableShape, currentKeyId: string, afterId: string, limit: number): EncryptedRow[] {
    const cols = [shape.idColumn, shape.keyIdColumn, ...shape.columns, ...shape.contextColumns].map(checked);
    return this.db
      .prepare(
        `SELECT ${[...new Set(cols)].join(", ")} FROM ${checked(shape.table)}
         WHERE ${checked(shape.keyIdColumn)} != ? AND ${checked(shape.idColumn)} > ? ORDER BY ${checked(shape.idColumn)} LIMIT ?`,
      )
      .all(currentKeyId, afterId, limit) as EncryptedRow[];
  }

  /**
   * Write the re-encrypted columns, guarded by the ciphertexts read: a row changed in
   * between (an update already wrote it under the new key) is left alone.
   */
  rewrite(shape: EncryptedTableShape, row: EncryptedRow, updated: EncryptedRow, newKeyId: string): boolean {
    const sets = [...shape.columns.map((c) => `${checked(c)} = ?`), `${checked(shape.keyIdColumn)} = ?`];
    const guards = [`${checked(shape.idColumn)} = ?`, `${checked(shape.keyIdColumn)} = ?`, ...shape.columns.map((c) => `${checked(c)} IS ?`)];
    return (
      this.db
        .prepare(`UPDATE ${checked(shape.table)} SET ${sets.join(", ")} WHERE ${guards.join(" AND ")}`)
        .run(...shape.columns.map((c) => updated[c] ?? null), newKeyId, row[shape.idColumn], row[shape.keyIdColumn], ...shape.columns.map((c) => row[c] ?? null))
        .changes > 0
    );
  }

  /** Rows per key id: what a rotation still has to do. */
  countByKey(shape: EncryptedTableShape): Array<{ keyId: string; rows: number }> {
    return this.db
      .prepare(`SELECT ${checked(shape.keyIdColumn)} AS keyId, COUNT(*) AS rows FROM ${checked(shape.table)} GROUP BY 1`)
      .all() as Array<{ keyId: string; rows: number }>;
  }
}
