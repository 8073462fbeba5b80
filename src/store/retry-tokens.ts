import type { Db } from "./db.js";

export interface RetryTokenRow {
  token: string;
  team_id: string;
  leads: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Enrichment retry tokens (docs/api.md, "Endpoint 2"): single use, bound to a workspace, 15 minutes. */
export class RetryTokensRepo {
  constructor(private readonly db: Db) {}

  insert(row: Omit<RetryTokenRow, "used_at">): void {
    this.db
      .prepare("INSERT INTO enrichment_retry_tokens (token, team_id, leads, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
      .run(row.token, row.team_id, row.leads, row.created_at, row.expires_at);
  }

  /**
   * Redeem a token: one guarded UPDATE, so of two concurrent redemptions exactly one gets
   * the row back. Unknown, used, expired and foreign tokens all give undefined alike.
   */
  consume(token: string, teamId: string, now: string): { leads: string } | undefined {
    return this.db
      .prepare(
        `UPDATE enrichment_retry_tokens SET used_at = ?
         WHERE token = ? AND used_at IS NULL AND expires_at > ? AND team_id = ?
         RETURNING leads`,
      )
      .get(now, token, now, teamId) as { leads: string } | undefined;
  }

  /** Housekeeping: tokens past their expiry are useless, used or not. */
  deleteExpired(now: string): number {
    return this.db.prepare("DELETE FROM enrichment_retry_tokens WHERE expires_at <= ?").run(now).changes;
  }
}
