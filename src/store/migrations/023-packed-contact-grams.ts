import { blocksOf, segmentOf } from "../gram-blocks.js";
import type { Migration } from "./migration.js";

/** Postings read per statement while converting: bounded memory at any size. */
const CONVERT_BATCH = 100_000;

/**
 * Contacts' gram index, third version: packed posting lists (`store/contact-gram-postings.ts`).
 *
 * Why: migration 012's one row per (gram, contact), with a second index by contact, was
 * ≈ 14 KB of a contact's ≈ 15 KB on disk (200,000 contacts: 3.0 GB, 2.85 GB of them
 * grams), and inserting ~66 rows at random places of that index per contact held imports
 * to ~350 contacts/s. Now a gram's contacts are blocks of varint differences of their
 * `seq` (per segment of seqs), a new integer per contact (its rowid is not stable: VACUUM may renumber it).
 * The newest-first index gains `seq`, so a search walks it and keeps the members of a
 * posting list without reading the rows.
 *
 * The grams are the same values (same keys, same hashes): only their layout changes, so no
 * key is needed and the 4/5-gram backfill list of migration 012 stays as it is.
 */
export const packedContactGrams: Migration = {
  name: "contacts: gram postings packed per gram in blocks of contact seqs",
  up(db) {
    db.exec(`
      ALTER TABLE contacts ADD COLUMN seq INTEGER;
      UPDATE contacts SET seq = rowid;
      CREATE UNIQUE INDEX contacts_by_seq ON contacts(seq);
      DROP INDEX contacts_by_team_created;
      CREATE INDEX contacts_by_team_created ON contacts(team_id, created_at DESC, id DESC, seq);

      -- No foreign key to contacts (a row holds many contacts: deleting one edits its blocks,
      -- ContactsRepo.delete); the workspace's rows go with it.
      CREATE TABLE contact_gram_postings (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        seg INTEGER NOT NULL,
        gram BLOB NOT NULL,
        first INTEGER NOT NULL,
        n INTEGER NOT NULL,
        postings BLOB NOT NULL,
        PRIMARY KEY (team_id, seg, gram, first)
      ) STRICT, WITHOUT ROWID;
    `);
    const insert = db.prepare("INSERT INTO contact_gram_postings (team_id, seg, gram, first, n, postings) VALUES (?, ?, ?, ?, ?, ?)");
    const write = (teamId: string, gram: Buffer, seqs: number[]) => {
      const sorted = [...new Set(seqs)].sort((x, y) => x - y);
      for (let i = 0; i < sorted.length; ) {
        const seg = segmentOf(sorted[i]!);
        let j = i;
        while (j < sorted.length && segmentOf(sorted[j]!) === seg) j++;
        for (const b of blocksOf(sorted.slice(i, j))) insert.run(teamId, seg, gram, b.first, b.n, b.postings);
        i = j;
      }
    };
    // In the old primary key's order (team, gram, …): each gram's postings arrive together;
    // the last gram of a batch may continue in the next, so it is written once it ends.
    const next = db
      .prepare(
        `SELECT g.team_id, g.gram, g.created_at, g.contact_id, c.seq FROM contact_email_ngrams g CROSS JOIN contacts c ON c.id = g.contact_id
         WHERE (g.team_id, g.gram, g.created_at, g.contact_id) > (?, ?, ?, ?)
         ORDER BY g.team_id, g.gram, g.created_at, g.contact_id LIMIT ?`,
      )
      .raw();
    let cursor: unknown[] = ["", Buffer.alloc(0), "", ""];
    let current: { teamId: string; gram: Buffer; seqs: number[] } | undefined;
    for (;;) {
      const rows = next.all(...cursor, CONVERT_BATCH) as Array<[string, Buffer, string, string, number]>;
      if (rows.length === 0) break;
      for (const [teamId, gram, , , seq] of rows) {
        if (current && current.teamId === teamId && current.gram.equals(gram)) current.seqs.push(seq);
        else {
          if (current) write(current.teamId, current.gram, current.seqs);
          current = { teamId, gram, seqs: [seq] };
        }
      }
      cursor = rows[rows.length - 1]!.slice(0, 4);
    }
    if (current) write(current.teamId, current.gram, current.seqs);
    db.exec("DROP TABLE contact_email_ngrams;");
  },
};
