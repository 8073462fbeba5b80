import type { Migration } from "./migration.js";

/**
 * Daily lead-search quota.
 *
 * - `search_quota_usage`: one counter per workspace and UTC day. A new search takes one
 *   unit with a single guarded `UPDATE … WHERE used < limit RETURNING`, so concurrent
 *   searches can never push it past the plan's limit.
 * - `search_reservations`: one row per accepted new search. A refund (provider failure)
 *   flips `refunded_at` once with a guarded UPDATE, so a search is refunded at most once
 *   even if the failure path runs twice.
 */
export const searchQuota: Migration = {
  name: "search quota: daily counters and reservations",
  up(db) {
    db.exec(`
      CREATE TABLE search_quota_usage (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        day TEXT NOT NULL,                  -- YYYY-MM-DD (UTC)
        used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
        PRIMARY KEY (team_id, day)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE search_reservations (
        id TEXT PRIMARY KEY,                -- srch_…
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        day TEXT NOT NULL,
        created_at TEXT NOT NULL,
        refunded_at TEXT
      ) STRICT;
      CREATE INDEX search_reservations_by_team_day ON search_reservations(team_id, day);
    `);
  },
};
