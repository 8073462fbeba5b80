import type { Migration } from "./migration.js";

/**
 * `Idempotency-Key` (docs/api.md, "Idempotent requests"): one row per workspace and key,
 * inserted before the request's work starts (the insert is the lock: of two concurrent
 * requests with one key only one inserts), completed with the answer it gave, so a
 * repeat replays it. Kept 24 hours.
 */
export const idempotencyKeys: Migration = {
  name: "idempotency keys: the first answer of a repeated request",
  up(db) {
    db.exec(`
      CREATE TABLE idempotency_keys (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,         -- operation, path parameters and body
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        response_status INTEGER,            -- NULL while the first request runs
        response_type TEXT,
        response_body TEXT,
        PRIMARY KEY (team_id, key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys(expires_at);
    `);
  },
};
