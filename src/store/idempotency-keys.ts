import type { Db } from "./db.js";

export interface IdempotencyRow {
  team_id: string;
  key: string;
  request_hash: string;
  created_at: string;
  expires_at: string;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
}

/** The `idempotency_keys` table (the idempotency-keys migration). */
export class IdempotencyKeysRepo {
  constructor(private readonly db: Db) {}

  /** Insert the reservation; false when the workspace already has a row for this key. */
  tryInsert(row: Pick<IdempotencyRow, "team_id" | "key" | "request_hash" | "created_at" | "expires_at">): boolean {
    return (
      this.db
        .prepare(
          `INSERT INTO idempotency_keys (team_id, key, request_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (team_id, key) DO NOTHING`,
        )
        .run(row.team_id, row.key, row.request_hash, row.created_at, row.expires_at).changes === 1
    );
  }

  get(teamId: string, key: string): IdempotencyRow | undefined {
    return this.db.prepare("SELECT * FROM idempotency_keys WHERE team_id = ? AND key = ?").get(teamId, key) as IdempotencyRow | undefined;
  }

  complete(teamId: string, key: string, response: { status: number; type: string | null; body: string }): void {
    this.db
      .prepare("UPDATE idempotency_keys SET response_status = ?, response_type = ?, response_body = ? WHERE team_id = ? AND key = ? AND response_status IS NULL")
      .run(response.status, response.type, response.body, teamId, key);
  }

  /** Drop a reservation whose request did not finish (so a retry runs it again). */
  release(teamId: string, key: string): void {
    this.db.prepare("DELETE FROM idempotency_keys WHERE team_id = ? AND key = ? AND response_status IS NULL").run(teamId, key);
  }

  /** Drop this row if it is a reservation abandoned before `abandonedBefore` (guarded: a live one is kept). */
  deleteIfAbandoned(teamId: string, key: string, abandonedBefore: string): boolean {
    return (
      this.db
        .prepare("DELETE FROM idempotency_keys WHERE team_id = ? AND key = ? AND response_status IS NULL AND created_at <= ?")
        .run(teamId, key, abandonedBefore).changes === 1
    );
  }

  deleteExpired(now: string): number {
    return this.db.prepare("DELETE FROM idempotency_keys WHERE expires_at <= ?").run(now).changes;
  }
}
