import type { Migration } from "./migration.js";

/**
 * Team API keys: they belong to a workspace, not a person. Only the SHA-256 of the raw
 * key is stored; rotation swaps `key_hash` in place, so the id stays and the old key dies
 * with the same statement. `scopes` is a JSON array of known scope names.
 */
export const teamApiKeys: Migration = {
  name: "team API keys",
  up(db) {
    db.exec(`
      CREATE TABLE team_api_keys (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        scopes TEXT NOT NULL CHECK (json_valid(scopes) AND json_type(scopes) = 'array'),
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL,
        rotated_at TEXT,
        last_used_at TEXT,
        expires_at TEXT,
        revoked_at TEXT
      ) STRICT;
      CREATE INDEX team_api_keys_by_team ON team_api_keys(team_id, created_at DESC, id DESC);
    `);
  },
};
