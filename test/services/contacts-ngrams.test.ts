import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { emailBlindIndex, emailGramHashes } from "../../src/core/blind-index.js";
import { addKeyToKeyFile, Keyring, loadKeyring } from "../../src/core/crypto.js";
import { backfillContactNgrams } from "../../src/services/contacts/contact-ngram-backfill.js";
import type { ContactService } from "../../src/services/contacts/contacts.js";
import { contactAad } from "../../src/services/contacts/contacts-encryption.js";
import { openInstance } from "../../src/services/instance.js";
import { ContactGramPostings } from "../../src/store/contact-gram-postings.js";
import { ContactsRepo } from "../../src/store/contacts.js";
import { DATABASE_FILE_NAME, migrate, openDatabase, schemaVersion, type Db } from "../../src/store/db.js";
import { contactNgrams } from "../../src/store/migrations/012-contact-ngrams.js";
import { MIGRATIONS } from "../../src/store/migrations/index.js";
import { allPostings, expectSameAsScan, query, seqOf } from "../helpers/contact-search.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";

const KEY = Buffer.alloc(32, 7).toString("hex");

afterEach(() => {
  vi.restoreAllMocks();
});

/** Emails whose substrings of 3–5 characters are shared by many (info@, gmail, .li). */
const EMAILS = [
  ...Array.from({ length: 12 }, (_, i) => `info@praxis${i}.li`),
  ...Array.from({ length: 9 }, (_, i) => `anna.meier${i}@gmail.com`),
  ...Array.from({ length: 7 }, (_, i) => `kontakt@info-${i}.ch`),
  "Grace.Hopper@Navy.example",
  "ops@gmx.ch",
];

async function addAll(contacts: ContactService, teamId: string, emails = EMAILS): Promise<void> {
  const result = await contacts.addMany(
    teamId,
    emails.map((email, i) => ({ email, name: `N${i}`, status: i % 3 === 0 ? "unsubscribed" : "active", tags: [i % 2 ? "odd" : "even"] })),
  );
  expect(result.created).toBe(emails.length);
}

const SEARCHES = ["inf", "info", "info@", "@gma", "gmail", "MEIER", "r1@g", ".li", "ct@in", "hopper@", "zzzz", "praxis1"];

describe("contacts substring search on the 3/4/5-gram index", () => {
  it("answers 3- to 5-character and longer searches exactly, paged newest first, with and without filters", async () => {
    const t = createTestInstance();
    await addAll(t.services.contacts, t.teamId);
    let nonEmpty = 0;
    for (const search of SEARCHES) {
      if (expectSameAsScan(t.services, t.teamId, { search }) > 0) nonEmpty++;
      expectSameAsScan(t.services, t.teamId, { search, status: ["active"] });
      expectSameAsScan(t.services, t.teamId, { search, tags: ["odd"], status: ["unsubscribed"] });
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(10);
    expect(t.services.contacts.list(t.teamId, query({ search: "info" })).total).toBe(19);
  });

  it("decrypts only the page's rows for a 4-character search with many matches", async () => {
    const t = createTestInstance();
    await addAll(t.services.contacts, t.teamId);
    const decrypt = vi.spyOn(Keyring.prototype, "decrypt");
    const result = t.services.contacts.list(t.teamId, query({ search: "info", limit: 5 }));
    expect(result.total).toBe(19);
    expect(result.contacts).toHaveLength(5);
    // Email and name of each contact on the page (no phones given): nothing to confirm.
    expect(decrypt).toHaveBeenCalledTimes(10);
  });

  it("forgets an email's old 4- and 5-grams when it is updated, and its grams when it is deleted", () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    const { id } = c.add(t.teamId, { email: "zebra@stripes.example", name: "Z" });
    c.add(t.teamId, { email: "other@x.example", name: "O" });
    expect(c.list(t.teamId, query({ search: "zebra" })).total).toBe(1);
    c.update(t.teamId, id, { email: "horse@plain.example" });
    for (const search of ["zebr", "zebra", "ripes"]) expect(c.list(t.teamId, query({ search })).total, search).toBe(0);
    expect(c.list(t.teamId, query({ search: "horse" })).contacts.map((x) => x.id)).toEqual([id]);
    const seq = seqOf(t.services.deps.db, id);
    expect(allPostings(t.services.deps.db).filter((p) => p.seq === seq).length).toBeGreaterThan(30);
    c.delete(t.teamId, id);
    expect(c.list(t.teamId, query({ search: "horse" })).total).toBe(0);
    expect(allPostings(t.services.deps.db).filter((p) => p.seq === seq)).toEqual([]);
  });

  it("keeps a workspace's searches exact while some contacts lack their 4/5-grams, until the backfill completes", async () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    await addAll(c, t.teamId);
    const db = t.services.deps.db;
    const keyring = t.services.keys.get();
    // Put half the contacts back in the state migration 012 leaves them: trigrams only, listed.
    const rows = db.prepare("SELECT id, email_ct, seq FROM contacts WHERE team_id = ?").all(t.teamId) as Array<{ id: string; email_ct: string; seq: number }>;
    const pending = rows.filter((_, i) => i % 2 === 0);
    const postings = new ContactGramPostings(db);
    for (const row of pending) {
      const email = keyring.decrypt(row.email_ct, contactAad(t.teamId, row.id, "email"));
      const longer = emailGramHashes(keyring, t.teamId, email, undefined, 5, 4);
      postings.remove(t.teamId, new Map(longer.map((gram) => [gram, [row.seq]])));
      db.prepare("INSERT INTO contact_ngram_backfill (contact_id, team_id) VALUES (?, ?)").run(row.id, t.teamId);
    }
    for (const search of SEARCHES) expectSameAsScan(t.services, t.teamId, { search });

    expect(backfillContactNgrams({ db, keys: t.services.keys }, 5)).toEqual({ done: pending.length, failed: 0 });
    expect((db.prepare("SELECT COUNT(*) AS n FROM contact_ngram_backfill").get() as { n: number }).n).toBe(0);
    for (const search of SEARCHES) expectSameAsScan(t.services, t.teamId, { search });
    // Every contact now has its full gram set, and nothing else.
    const expected = rows.reduce((n, r) => n + emailGramHashes(keyring, t.teamId, keyring.decrypt(r.email_ct, contactAad(t.teamId, r.id, "email"))).length, 0);
    expect(allPostings(db)).toHaveLength(expected);
  });

  it("does not give a contact changed during the backfill the grams of its old email", () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    const { id } = c.add(t.teamId, { email: "old@before.example", name: "O" });
    const db = t.services.deps.db;
    const stale = db.prepare("SELECT email_ct FROM contacts WHERE id = ?").pluck().get(id) as string;
    db.prepare("INSERT INTO contact_ngram_backfill (contact_id, team_id) VALUES (?, ?)").run(id, t.teamId);
    // The backfill read the row, then an update rewrote it (and its grams) before the write.
    c.update(t.teamId, id, { email: "new@after.example" });
    const staleGrams = emailGramHashes(t.services.keys.get(), t.teamId, "old@before.example", undefined, 5, 4);
    expect(new ContactsRepo(db).completeBackfilledGrams([{ teamId: t.teamId, contactId: id, seq: seqOf(db, id), emailCt: stale, grams: staleGrams }])).toBe(0);
    expect(c.list(t.teamId, query({ search: "befor" })).total).toBe(0);
    expect(c.list(t.teamId, query({ search: "after" })).total).toBe(1);
  });

  it("recomputes the 4/5-grams under the new key when the key rotates", async () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    await addAll(c, t.teamId);
    const before = new Set(allPostings(t.services.deps.db).map((p) => p.gram));
    addKeyToKeyFile(t.dataDir);
    t.services.keys.replace(loadKeyring(t.dataDir, {}));
    let midway = 0;
    const result = await t.services.keyRotation.reencryptAll(() => t.services.keys.get(), {
      batchSize: 7,
      pause: async () => {
        // Rows under both keys: each search looks up its gram under both.
        for (const search of ["info", "gmail", "@gm"]) expectSameAsScan(t.services, t.teamId, { search });
        midway++;
      },
    });
    expect(midway).toBeGreaterThanOrEqual(3);
    expect(result.remaining).toBe(0);
    const after = allPostings(t.services.deps.db).map((p) => p.gram);
    expect(after.length).toBeGreaterThan(100);
    expect(after.some((g) => before.has(g))).toBe(false);
    for (const search of SEARCHES) expectSameAsScan(t.services, t.teamId, { search });
  });
});

describe("migration 012 and the startup backfill", () => {
  it("moves pre-012 trigrams into the new index and computes the 4/5-grams when the data directory is opened", () => {
    const dataDir = tempDir();
    const env = { OUTREACH_SECRET_KEY: KEY };
    const keyring = loadKeyring(dataDir, env);
    // A database as the contacts release wrote it: schema 10, trigrams in contact_email_grams.
    const db: Db = openDatabase(join(dataDir, DATABASE_FILE_NAME), MIGRATIONS.slice(0, MIGRATIONS.indexOf(contactNgrams)));
    const teamId = "team_0000000000000001";
    db.prepare("INSERT INTO teams (id, name, slug, plan, created_at) VALUES (?, 'Old', 'old', 'self-hosted', '2026-01-01T00:00:00.000Z')").run(teamId);
    EMAILS.forEach((email, i) => {
      const id = `ct_${String(i).padStart(16, "0")}`;
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      db.prepare(
        `INSERT INTO contacts (id, team_id, email_ct, email_bidx, name_ct, status, tags, key_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'active', '[]', ?, ?, ?)`,
      ).run(id, teamId, keyring.encrypt(email, contactAad(teamId, id, "email")), emailBlindIndex(keyring, teamId, email), keyring.encrypt(`N${i}`, contactAad(teamId, id, "name")), keyring.currentId, at, at);
      for (const gram of emailGramHashes(keyring, teamId, email, undefined, 3)) {
        db.prepare("INSERT INTO contact_email_grams (team_id, gram, contact_id) VALUES (?, ?, ?)").run(teamId, gram, id);
      }
    });
    const trigrams = (db.prepare("SELECT COUNT(*) AS n FROM contact_email_grams").get() as { n: number }).n;

    migrate(db);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'contact_email_grams'").get()).toBeUndefined();
    // Then migration 023 packed them: the same values, as 8-byte keys, each posting a contact of the workspace.
    expect(allPostings(db)).toHaveLength(trigrams);
    expect(db.prepare("SELECT COUNT(*) AS n FROM contact_gram_postings WHERE length(gram) <> 8").get()).toEqual({ n: 0 });
    const seqs = new Set(db.prepare("SELECT seq FROM contacts WHERE team_id = ?").pluck().all(teamId) as number[]);
    expect(allPostings(db).every((p) => seqs.has(p.seq) && p.teamId === teamId)).toBe(true);
    expect((db.prepare("SELECT COUNT(*) AS n FROM contact_ngram_backfill").get() as { n: number }).n).toBe(EMAILS.length);
    db.close();

    const instance = openInstance({ dataDir, env, config: { rateLimitPerMinute: 0, enrich: false } });
    try {
      const idb = instance.services.deps.db;
      expect((idb.prepare("SELECT COUNT(*) AS n FROM contact_ngram_backfill").get() as { n: number }).n).toBe(0);
      expect(allPostings(idb).length).toBeGreaterThan(trigrams * 2);
      for (const search of SEARCHES) expectSameAsScan(instance.services, teamId, { search });
      expect(instance.services.contacts.list(teamId, query({ search: "gmail" })).total).toBe(9);
    } finally {
      instance.close();
    }
  });
});
