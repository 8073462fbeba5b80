import type { Migration } from "./migration.js";

/**
 * Address verification (docs/api.md, "Address verification"):
 *
 * - contacts gain `verification` (the JSON the API shows, or NULL), its `verification_status`
 *   (for the list filter, indexed with the workspace) and `verified_at` (so a verification run
 *   that was killed can skip what it already wrote when it resumes). Written in one UPDATE per
 *   contact: a contact is never half-verified. Cleared with the email.
 * - `verification_runs`: the `all` run in progress per workspace (its start time): a restart
 *   continues it instead of starting over.
 * - `verification_retries`: greylisted addresses (SMTP 4xx) and when to ask again (≥ 5 minutes
 *   later, at most 3 tries): kept across restarts.
 * - `verification_domains`: what a mail domain answered for all of its addresses (catch-all,
 *   greylisting, unreachable) until `expires_at`, so a list with thousands of addresses at one
 *   domain does not ask again for each.
 */
export const contactVerification: Migration = {
  name: "contact verification: status per contact, resumable runs, greylisting retries, per-domain answers",
  up(db) {
    db.exec(`
      ALTER TABLE contacts ADD COLUMN verification TEXT;
      ALTER TABLE contacts ADD COLUMN verification_status TEXT
        CHECK (verification_status IS NULL OR verification_status IN ('deliverable', 'undeliverable', 'risky', 'unknown'));
      ALTER TABLE contacts ADD COLUMN verified_at TEXT;
      CREATE INDEX contacts_by_team_verification ON contacts(team_id, verification_status);
      -- A run pages through a workspace's contacts by id (a cursor that survives inserts).
      CREATE INDEX contacts_by_team_id ON contacts(team_id, id);

      CREATE TABLE verification_runs (
        team_id TEXT PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
        started_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE verification_retries (
        contact_id TEXT PRIMARY KEY REFERENCES contacts(id) ON DELETE CASCADE,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        tries INTEGER NOT NULL CHECK (tries >= 1),
        due_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX verification_retries_due ON verification_retries(due_at);

      CREATE TABLE verification_domains (
        domain TEXT PRIMARY KEY,
        smtp TEXT NOT NULL CHECK (smtp IN ('catch-all', 'greylisted', 'unreachable')),
        reason TEXT NOT NULL,
        expires_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
