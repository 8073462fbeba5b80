import { StatementCache, type Db } from "./db.js";

/** SQL for the daily search quota (migration 004). */
export class SearchQuotaRepo {
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  used(teamId: string, day: string): number {
    const row = this.statements.get("SELECT used FROM search_quota_usage WHERE team_id = ? AND day = ?").get(teamId, day) as
      | { used: number }
      | undefined;
    return row?.used ?? 0;
  }

  /**
   * Take one unit of the day's quota and record the reservation, atomically. Returns the
   * new `used`, or undefined when the limit is reached (nothing is written then). A null
   * limit (unlimited plan) still counts, so `used` is reported truthfully.
   */
  reserve(reservationId: string, teamId: string, day: string, limit: number | null, now: string): number | undefined {
    return this.db
      .transaction(() => {
        this.statements.get("INSERT INTO search_quota_usage (team_id, day, used) VALUES (?, ?, 0) ON CONFLICT DO NOTHING").run(teamId, day);
        const row = this.statements.get("UPDATE search_quota_usage SET used = used + 1 WHERE team_id = ? AND day = ? AND (? IS NULL OR used < ?) RETURNING used")
          .get(teamId, day, limit, limit) as { used: number } | undefined;
        if (!row) return undefined;
        this.statements.get("INSERT INTO search_reservations (id, team_id, day, created_at) VALUES (?, ?, ?, ?)")
          .run(reservationId, teamId, day, now);
        return row.used;
      })
      .immediate();
  }

  /** Give a reservation's unit back; true only the first time (a refund happens at most once). */
  refund(reservationId: string, now: string): boolean {
    return this.db
      .transaction(() => {
        const row = this.db
          .prepare("UPDATE search_reservations SET refunded_at = ? WHERE id = ? AND refunded_at IS NULL RETURNING team_id, day")
          .get(now, reservationId) as { team_id: string; day: string } | undefined;
        if (!row) return false;
        this.db.prepare("UPDATE search_quota_usage SET used = used - 1 WHERE team_id = ? AND day = ? AND used > 0").run(row.team_id, row.day);
        return true;
      })
      .immediate();
  }
}
