import type { Migration } from "./migration.js";

/**
 * The append-only tail of contacts' gram index (`store/contact-gram-tail.ts`): an import
 * transaction writes its contacts' postings there as one run, in key order, and the packed
 * index (migration 023) takes them over a sixteenth of the gram space at a time. Empty at
 * first: a data directory written before keeps its packed index as it is, and searches read
 * both tables.
 */
export const contactGramTail: Migration = {
  name: "contacts: append-only tail of the gram index",
  up(db) {
    db.exec(`
      -- No foreign key to contacts (a row holds many contacts, as in contact_gram_postings).
      CREATE TABLE contact_gram_tail (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        run INTEGER NOT NULL,
        -- The first byte of the gram hashes it holds (0-255); grams: store/gram-slots.ts.
        slot INTEGER NOT NULL,
        grams BLOB NOT NULL,
        PRIMARY KEY (team_id, run, slot)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
