import type { Db } from "./db.js";

export interface SuppressionRow {
  id: string;
  team_id: string;
  email_bidx: string;
  email_ct: string;
  key_id: string;
  reason: "unsubscribed" | "bounced";
  created_at: string;
}

/** Addresses a workspace must never mail again (migration 017-sending), found by blind index. */
export class SuppressionsRepo {
  constructor(private readonly db: Db) {}

  /** Adds the address unless it is already there (the first reason stays). */
  add(row: SuppressionRow): void {
    this.db
      .prepare(
        `INSERT INTO email_suppressions (id, team_id, email_bidx, email_ct, key_id, reason, created_at)
         VALUES (@id, @team_id, @email_bidx, @email_ct, @key_id, @reason, @created_at)
         ON CONFLICT (team_id, email_bidx) DO NOTHING`,
      )
      .run(row);
  }

  /** Whether any of the address's blind indexes (one per loaded key) is suppressed. */
  anyOf(teamId: string, bidxs: readonly string[]): boolean {
    if (bidxs.length === 0) return false;
    return (
      this.db
        .prepare(`SELECT 1 FROM email_suppressions WHERE team_id = ? AND email_bidx IN (${bidxs.map(() => "?").join(", ")}) LIMIT 1`)
        .get(teamId, ...bidxs) !== undefined
    );
  }

  setBlindIndex(id: string, bidx: string): void {
    this.db.prepare("UPDATE email_suppressions SET email_bidx = ? WHERE id = ?").run(bidx, id);
  }
}
