import type { Migration } from "./migration.js";

/**
 * Contacts, with personal data encrypted at rest.
 *
 * - `email_ct`, `name_ct`, `phone_ct`: AES-256-GCM ciphertexts (`v1.<keyId>.<…>`), associated
 *   data binding each to workspace, contact id and column; `key_id` is the key they were
 *   written with, so a key rotation can find the rows it still has to re-encrypt.
 * - `email_bidx`: blind index, keyed HMAC of the normalised email: uniqueness per workspace
 *   (case-insensitive) and exact lookups without the email in clear.
 * - `contact_tags`: one row per tag, for the "any of these tags" filter.
 * - `contact_email_grams`: blind n-gram index of the normalised email (keyed HMACs of its
 *   trigrams, truncated), for the substring search; candidates are confirmed by decrypting.
 */
export const contacts: Migration = {
  name: "contacts: encrypted personal data, blind index, tags, n-gram search index",
  up(db) {
    db.exec(`
      CREATE TABLE contacts (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        email_ct TEXT NOT NULL,
        email_bidx TEXT NOT NULL,
        name_ct TEXT NOT NULL,
        phone_ct TEXT,
        description TEXT,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'unsubscribed')),
        tags TEXT NOT NULL DEFAULT '[]',
        key_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (team_id, email_bidx)
      ) STRICT;
      -- Newest first, stable: created_at then id.
      CREATE INDEX contacts_by_team_created ON contacts(team_id, created_at DESC, id DESC);
      CREATE INDEX contacts_by_team_status ON contacts(team_id, status);
      CREATE INDEX contacts_by_key ON contacts(key_id);

      CREATE TABLE contact_tags (
        team_id TEXT NOT NULL,
        tag TEXT NOT NULL,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, tag, contact_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX contact_tags_by_contact ON contact_tags(contact_id);

      CREATE TABLE contact_email_grams (
        team_id TEXT NOT NULL,
        gram TEXT NOT NULL,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, gram, contact_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX contact_email_grams_by_contact ON contact_email_grams(contact_id);
    `);
  },
};
