import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emailBlindIndex, emailGramHashes } from "../../src/core/blind-index.js";
import { loadKeyring, type Keyring } from "../../src/core/crypto.js";
import { contactAad } from "../../src/services/contacts/contacts-encryption.js";
import { openInstance } from "../../src/services/instance.js";
import { DATABASE_FILE_NAME, openDatabase, schemaVersion, type Db } from "../../src/store/db.js";
import { packedContactGrams } from "../../src/store/migrations/023-packed-contact-grams.js";
import { MIGRATIONS } from "../../src/store/migrations/index.js";
import { allPostings, expectSameAsScan, query, seqOf } from "../helpers/contact-search.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";

const KEY = Buffer.alloc(32, 9).toString("hex");
const TEAMS = ["team_0000000000000001", "team_0000000000000002"];

/** Many contacts sharing grams (several blocks per common gram) and some rare ones. */
const EMAILS = Array.from({ length: 400 }, (_, i) =>
  i % 3 === 0 ? `info@praxis${i}.li` : i % 3 === 1 ? `anna.meier${i}@gmail.com` : `Kontakt.${String.fromCharCode(97 + (i % 26))}${i}@Büro-${i % 11}.ch`,
);
const SEARCHES = ["inf", "info", "gmail", "@gma", "meier1", "kontakt.b", "büro-3", "praxis69", "zzz", ".li", "a.meier4"];

/**
 * A data directory as the code before migration 023 wrote it (schema 22): every contact's
 * 3/4/5-grams one row each in `contact_email_ngrams`, rowids with gaps (deleted contacts),
 * the same emails in two workspaces, and some contacts still waiting for their 4/5-grams
 * (migration 012's backfill list: trigrams only).
 */
function writeOldDataDir(dataDir: string, keyring: Keyring): { db: Db; rows: number; contacts: number } {
  const db = openDatabase(join(dataDir, DATABASE_FILE_NAME), MIGRATIONS.slice(0, MIGRATIONS.indexOf(packedContactGrams)));
  const insertContact = db.prepare(
    `INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, status, tags, key_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertGram = db.prepare("INSERT INTO contact_email_ngrams (team_id, gram, created_at, contact_id) VALUES (?, ?, ?, ?)");
  let rows = 0;
  for (const [t, teamId] of TEAMS.entries()) {
    db.prepare("INSERT INTO teams (id, name, slug, plan, created_at) VALUES (?, ?, ?, 'self-hosted', '2026-01-01T00:00:00.000Z')").run(teamId, `Old ${t}`, `old-${t}`);
    EMAILS.forEach((email, i) => {
      const id = `ct_${t}${String(i).padStart(15, "0")}`;
      // Not in insertion order: the list's order is created_at, then id.
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, (i * 37) % 500)).toISOString();
      insertContact.run(id, teamId, keyring.encrypt(email, contactAad(teamId, id, "email")), emailBlindIndex(keyring, teamId, email), keyring.encrypt(`N${i}`, contactAad(teamId, id, "name")), i % 4 ? "active" : "unsubscribed", JSON.stringify([i % 2 ? "odd" : "even"]), keyring.currentId, at, at);
      db.prepare("INSERT INTO contact_tags (team_id, tag, contact_id) VALUES (?, ?, ?)").run(teamId, i % 2 ? "odd" : "even", id);
      const pending = i % 10 === 5;
      for (const gram of emailGramHashes(keyring, teamId, email, undefined, pending ? 3 : 5)) {
        insertGram.run(teamId, Buffer.from(gram, "hex"), at, id);
        rows++;
      }
      if (pending) db.prepare("INSERT INTO contact_ngram_backfill (contact_id, team_id) VALUES (?, ?)").run(id, teamId);
    });
  }
  // Gaps in the rowids: deleted contacts (their gram rows went with them).
  const gone = db.prepare("SELECT id FROM contacts WHERE rowid % 50 = 7").pluck().all() as string[];
  for (const id of gone) {
    rows -= (db.prepare("SELECT COUNT(*) FROM contact_email_ngrams WHERE contact_id = ?").pluck().get(id) as number);
    db.prepare("DELETE FROM contacts WHERE id = ?").run(id);
  }
  return { db, rows, contacts: TEAMS.length * EMAILS.length - gone.length };
}

describe("migration 023: packed gram postings", () => {
  it("converts a data directory written before it: the same postings, and every search answers as a full scan does", () => {
    const dataDir = tempDir();
    const env = { OUTREACH_SECRET_KEY: KEY };
    const { db, rows, contacts } = writeOldDataDir(dataDir, loadKeyring(dataDir, env));
    db.close();

    const instance = openInstance({ dataDir, env, config: { rateLimitPerMinute: 0, enrich: false } });
    try {
      const { services } = instance;
      const idb = services.deps.db;
      expect(schemaVersion(idb)).toBe(MIGRATIONS.length);
      expect(idb.prepare("SELECT name FROM sqlite_schema WHERE name = 'contact_email_ngrams'").get()).toBeUndefined();
      // Every contact numbered once.
      expect(idb.prepare("SELECT COUNT(*) AS n, COUNT(DISTINCT seq) AS d, COUNT(seq) AS s FROM contacts").get()).toEqual({ n: contacts, d: contacts, s: contacts });
      // The old rows, plus the 4/5-grams the startup backfill added for the listed contacts.
      const keyring = services.keys.get();
      const pendingExtra = (idb.prepare("SELECT id, team_id, email_ct FROM contacts").all() as Array<{ id: string; team_id: string; email_ct: string }>)
        .filter((r) => Number(r.id.slice(4)) % 10 === 5)
        .reduce((n, r) => n + emailGramHashes(keyring, r.team_id, keyring.decrypt(r.email_ct, contactAad(r.team_id, r.id, "email")), undefined, 5, 4).length, 0);
      expect(allPostings(idb)).toHaveLength(rows + pendingExtra);
      expect(idb.prepare("SELECT COUNT(*) FROM contact_ngram_backfill").pluck().get()).toBe(0);
      for (const teamId of TEAMS) {
        for (const search of SEARCHES) {
          expectSameAsScan(services, teamId, { search }, 50);
          expectSameAsScan(services, teamId, { search, status: ["active"], tags: ["odd"] }, 50);
        }
      }
      // Writes after the upgrade keep it exact: a new contact, an update, a deletion.
      const c = services.contacts;
      const [teamId] = TEAMS as [string];
      const { id } = c.add(teamId, { email: "info@neu.example", name: "Neu" });
      const victim = (c.list(teamId, query({ search: "gmail" })).contacts[3])!;
      c.update(teamId, victim.id, { email: "umgezogen@web.example" });
      const deleted = (c.list(teamId, query({ search: "praxis" })).contacts[0])!;
      c.delete(teamId, deleted.id);
      for (const search of ["info", "gmail", "praxis", "umgezogen", "neu.ex"]) expectSameAsScan(services, teamId, { search }, 50);
      expect(seqOf(idb, id)).toBeGreaterThan(seqOf(idb, victim.id));
    } finally {
      instance.close();
    }
  });
});

describe("gram postings on writes", () => {
  it("deletes a contact whose key is no longer loaded from every posting list it was in", () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    const { id } = c.add(t.teamId, { email: "lost@key.example", name: "L" });
    c.add(t.teamId, { email: "kept@key.example", name: "K" });
    const db = t.services.deps.db;
    const seq = seqOf(db, id);
    // The row as a key that is not loaded wrote it: its grams cannot be computed.
    db.prepare("UPDATE contacts SET email_ct = 'v1.deadbeef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', key_id = 'deadbeef' WHERE id = ?").run(id);
    expect(allPostings(db).some((p) => p.seq === seq)).toBe(true);
    c.delete(t.teamId, id);
    expect(allPostings(db).filter((p) => p.seq === seq)).toEqual([]);
    expect(c.list(t.teamId, query({ search: "key.example" })).total).toBe(1);
  });

  it("pages deep into common grams and finds rare ones among many contacts, newest first", async () => {
    const t = createTestInstance();
    const emails = Array.from({ length: 1200 }, (_, i) => (i % 2 ? `info${i}@praxis.li` : `x${i}.rare${i % 97}@mail.example`));
    // Two imports whose timestamps interleave: seq order is not the list's order.
    await t.services.contacts.addMany(t.teamId, emails.slice(0, 600).map((email, i) => ({ email, name: `A${i}` })));
    t.clock.advance(-300);
    await t.services.contacts.addMany(t.teamId, emails.slice(600).map((email, i) => ({ email, name: `B${i}`, tags: i % 3 ? ["t"] : [] })));
    for (const search of ["info", "rare5", "rare96@", "mail.", "@pra"]) {
      const all = expectSameAsScan(t.services, t.teamId, { search, tags: search === "info" ? ["t"] : undefined }, 25);
      expect(all).toBeGreaterThan(0);
    }
    const deep = t.services.contacts.list(t.teamId, query({ search: "info", page: 29, limit: 20 }));
    expect(deep.total).toBe(600);
    expect(deep.contacts).toHaveLength(20);
  });
});
