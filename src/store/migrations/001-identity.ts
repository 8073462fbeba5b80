import type { Migration } from "./migration.js";

export const identity: Migration = {
  name: "identity: users, plans, teams, memberships, personal access tokens",
  up(db) {
    db.exec(`
      CREATE TABLE plans (
        name TEXT PRIMARY KEY,
        daily_searches INTEGER,          -- NULL: unlimited
        max_contacts INTEGER,            -- NULL: unlimited
        custom_sender INTEGER NOT NULL CHECK (custom_sender IN (0, 1))
      ) STRICT;
      INSERT INTO plans (name, daily_searches, max_contacts, custom_sender) VALUES
        ('free', 25, 1000, 0),
        ('pro', 500, 50000, 1),
        ('self-hosted', NULL, NULL, 1);

      CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE,
        is_beta_tester INTEGER NOT NULL DEFAULT 0 CHECK (is_beta_tester IN (0, 1)),
        plan TEXT NOT NULL REFERENCES plans(name),
        -- Per-team overrides of the plan's limits; NULL: the plan's value, -1: unlimited.
        daily_searches_override INTEGER,
        max_contacts_override INTEGER,
        created_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        active_team_id TEXT REFERENCES teams(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE memberships (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at TEXT NOT NULL,
        PRIMARY KEY (team_id, user_id)
      ) STRICT;
      CREATE INDEX memberships_by_user ON memberships(user_id, created_at);

      CREATE TABLE personal_tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        display_prefix TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        expires_at TEXT,
        revoked_at TEXT
      ) STRICT;
      CREATE INDEX personal_tokens_by_user ON personal_tokens(user_id);
    `);
  },
};
