import type { Migration } from "./migration.js";

/**
 * Contacts' substring index, second version: blind 3-, 4- and 5-grams, each posting
 * carrying the contact's creation time.
 *
 * Why: at 100,000 contacts the slow searches were 4–5 character substrings of common
 * trigrams (`@gma`, `info`): their trigram intersection left ~4,500 candidates, each read
 * from `contacts` and decrypted to confirm, and the page needed them all to count and sort.
 * With the query's own n-gram indexed, a 3–5 character query is one posting list that IS
 * the answer (64-bit keyed hashes of the normalised email: a match is the substring), and
 * with `created_at` in the key the list is already newest first: `total` is an index range
 * count and the page an index range with LIMIT/OFFSET; only the page's rows are read.
 *
 * Size: ~7.5M postings at 100k contacts, each stored twice (the key and the by-contact
 * index), so the gram is kept as its 8 bytes (BLOB, not 16 hex characters). The workspace
 * id stays the key's prefix although the gram is workspace-specific already (its id is in
 * the HMAC input): it keeps a workspace's postings together, so writing a small workspace's
 * grams touches its own few pages, not random pages of every workspace's index (bench,
 * 2,000-row batch import into a new workspace of a 100k-contact database: 3.8 s with the
 * prefix, 5.4 s without; 1.8 s before this migration. The prefix costs ~400 MB there).
 *
 * Backfill: the existing trigrams are copied here with their contact's `created_at` (SQL
 * only). The 4- and 5-grams need each email in clear, which a migration cannot have (no
 * keyring): every existing contact is listed in `contact_ngram_backfill`, and opening the
 * data directory computes their 4/5-grams (`backfillContactNgrams`, services). Until a
 * workspace has no row left there, its searches use its trigrams only, as before.
 */
export const contactNgrams: Migration = {
  name: "contacts: 3/4/5-gram index in newest-first order, 4/5-gram backfill list",
  up(db) {
    db.exec(`
      CREATE TABLE contact_email_ngrams (
        team_id TEXT NOT NULL,
        gram BLOB NOT NULL,
        created_at TEXT NOT NULL,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, gram, created_at, contact_id)
      ) STRICT, WITHOUT ROWID;
      -- Rewriting or deleting one contact's grams (updates, rotation, cascade).
      CREATE INDEX contact_email_ngrams_by_contact ON contact_email_ngrams(contact_id);

      INSERT INTO contact_email_ngrams (team_id, gram, created_at, contact_id)
        SELECT g.team_id, unhex(g.gram), c.created_at, g.contact_id
        FROM contact_email_grams g JOIN contacts c ON c.id = g.contact_id;
      DROP TABLE contact_email_grams;

      CREATE TABLE contact_ngram_backfill (
        contact_id TEXT PRIMARY KEY REFERENCES contacts(id) ON DELETE CASCADE,
        team_id TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX contact_ngram_backfill_by_team ON contact_ngram_backfill(team_id);
      INSERT INTO contact_ngram_backfill (contact_id, team_id) SELECT id, team_id FROM contacts;
    `);
  },
};
