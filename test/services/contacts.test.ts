import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addKeyToKeyFile, loadKeyring, retireOldKeys } from "../../src/core/crypto.js";
import { ContactService } from "../../src/services/contacts/contacts.js";
import { openInstance } from "../../src/services/instance.js";
import { createTestInstance } from "../helpers/instance.js";

const query = (q: Record<string, unknown> = {}) => ({ page: 1, limit: 20, ...q }) as never;

function fileBytes(dataDir: string): Buffer {
  // The database, its WAL and shared-memory files: everything SQLite wrote.
  return Buffer.concat(readdirSync(dataDir).filter((f) => f.startsWith("outreach.db")).map((f) => readFileSync(join(dataDir, f))));
}

describe("contacts at rest", () => {
  it("leaves no plaintext email, name or phone anywhere in the SQLite files", () => {
    const t = createTestInstance();
    const contacts = t.services.contacts;
    const { id } = contacts.add(t.teamId, { email: "Grace.Hopper@navy.example", name: "Grace Brewster Hopper", phone: "+1 555 010 9999", tags: ["vip"] });
    contacts.update(t.teamId, id, { name: "Rear Admiral Hopper", phone: "+1 555 010 8888" });
    contacts.add(t.teamId, { email: "ada.lovelace@engine.example", name: "Augusta Ada King", phone: "+44 20 7946 0000" });
    t.services.deps.db.pragma("wal_checkpoint(TRUNCATE)");
    const bytes = fileBytes(t.dataDir);
    for (const secret of ["grace.hopper", "Grace.Hopper", "navy.example", "Grace Brewster", "Rear Admiral", "555 010", "ada.lovelace", "Augusta Ada", "7946"]) {
      expect(bytes.includes(Buffer.from(secret)), secret).toBe(false);
    }
    // Not encoded as UTF-16 either.
    expect(bytes.includes(Buffer.from("grace.hopper", "utf16le"))).toBe(false);
    // …while the service still reads them back.
    expect(contacts.get(t.teamId, id)).toMatchObject({ email: "Grace.Hopper@navy.example", name: "Rear Admiral Hopper", phone: "+1 555 010 8888", tags: ["vip"] });
  });

  it("refuses a ciphertext moved to another row or column", () => {
    const t = createTestInstance();
    const a = t.services.contacts.add(t.teamId, { email: "a@x.example", name: "Alpha" });
    const b = t.services.contacts.add(t.teamId, { email: "b@x.example", name: "Bravo" });
    const db = t.services.deps.db;
    const rowA = db.prepare("SELECT email_ct, name_ct FROM contacts WHERE id = ?").get(a.id) as { email_ct: string; name_ct: string };
    db.prepare("UPDATE contacts SET email_ct = ? WHERE id = ?").run(rowA.email_ct, b.id);
    expect(() => t.services.contacts.get(t.teamId, b.id)).toThrow(/failed authentication/);
    db.prepare("UPDATE contacts SET name_ct = ? WHERE id = ?").run(rowA.email_ct, a.id);
    expect(() => t.services.contacts.get(t.teamId, a.id)).toThrow(/failed authentication/);
  });

  it("says which key is missing when the data directory is opened with the wrong key", () => {
    const key1 = Buffer.alloc(32, 1).toString("hex");
    const key2 = Buffer.alloc(32, 2).toString("hex");
    const t = createTestInstance({ env: { OUTREACH_SECRET_KEY: key1 } });
    const { id } = t.services.contacts.add(t.teamId, { email: "k@x.example", name: "Kilo" });
    const other = openInstance({ dataDir: t.dataDir, env: { OUTREACH_SECRET_KEY: key2 }, clock: t.clock });
    try {
      expect(() => other.services.contacts.get(t.teamId, id)).toThrow(/encrypted with key [0-9a-f]{8}, which is not loaded \(wrong OUTREACH_SECRET_KEY or key file\?\)/);
    } finally {
      other.close();
    }
  });
});

describe("contact uniqueness and limits", () => {
  it("treats emails that differ only in case or surrounding spaces as duplicates", () => {
    const t = createTestInstance();
    t.services.contacts.add(t.teamId, { email: "Bob@Example.com", name: "Bob" });
    expect(() => t.services.contacts.add(t.teamId, { email: "bob@example.COM", name: "Bobby" })).toThrow(/already exists/);
    const other = t.services.contacts.add(t.teamId, { email: "carol@example.com", name: "Carol" });
    expect(() => t.services.contacts.update(t.teamId, other.id, { email: "BOB@example.com" })).toThrow(/already exists/);
    // Changing only the case of one's own email is fine.
    expect(t.services.contacts.update(t.teamId, other.id, { email: "Carol@Example.com" }).email).toBe("Carol@Example.com");
    expect(t.services.contacts.findByEmail(t.teamId, "CAROL@example.com")?.id).toBe(other.id);
  });

  it("allows the same email in two workspaces, with unrelated blind indexes", () => {
    const t = createTestInstance();
    const team2 = t.services.identity.createTeam({ name: "Beta", ownerId: t.userId, plan: "self-hosted" });
    t.services.contacts.add(t.teamId, { email: "same@example.com", name: "One" });
    t.services.contacts.add(team2.id, { email: "same@example.com", name: "Two" });
    const bidx = t.services.deps.db.prepare("SELECT DISTINCT email_bidx FROM contacts").all();
    expect(bidx).toHaveLength(2);
  });

  it("stops at the plan's contact limit, and counts the workspace's contacts", async () => {
    const t = createTestInstance({ plan: "free" });
    t.services.plans.set("free", { maxContacts: 2 });
    const c = t.services.contacts;
    c.add(t.teamId, { email: "1@x.example", name: "One" });
    c.add(t.teamId, { email: "2@x.example", name: "Two" });
    expect(c.count(t.teamId)).toBe(2);
    expect(() => c.add(t.teamId, { email: "3@x.example", name: "Three" })).toThrow(expect.objectContaining({ code: "contact_limit_reached", status: 403 }));
    const batch = await c.addMany(t.teamId, [{ email: "4@x.example", name: "Four" }]);
    expect(batch.results[0]).toMatchObject({ status: "limit_reached" });
    expect(c.count(t.teamId)).toBe(2);
  });

  it("an import waits for the caller's pause between its slices (the server's write turn), each slice whole", async () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    const countsAtPauses: number[] = [];
    const pause = () => {
      countsAtPauses.push(c.count(t.teamId));
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    const items = Array.from({ length: 300 }, (_, i) => ({ email: `p${i}@x.example`, name: `P ${i}` }));
    const result = await c.addMany(t.teamId, items, [], { pause });
    expect(result.created).toBe(300);
    // Several slices (a contact costs about a millisecond, a slice 8 to 64 ms), each committed before the pause.
    expect(countsAtPauses.length).toBeGreaterThan(0);
    expect(countsAtPauses.every((n, i) => n > 0 && n < 300 && (i === 0 || n > countsAtPauses[i - 1]!))).toBe(true);
  });

  it("never exceeds the limit when two processes add at the same time", async () => {
    const t = createTestInstance({ plan: "free" });
    t.services.plans.set("free", { maxContacts: 30 });
    const second = openInstance({ dataDir: t.dataDir, env: {}, clock: t.clock });
    try {
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          Promise.resolve().then(() => {
            const services = i % 2 ? second.services : t.services;
            try {
              services.contacts.add(t.teamId, { email: `p${i}@x.example`, name: `P${i}` });
              return "ok";
            } catch (err) {
              return (err as { code?: string }).code;
            }
          }),
        ),
      );
      expect(results.filter((r) => r === "ok")).toHaveLength(30);
      expect(results.filter((r) => r === "contact_limit_reached")).toHaveLength(30);
      expect(t.services.contacts.count(t.teamId)).toBe(30);
    } finally {
      second.close();
    }
  });
});

describe("contact list", () => {
  function seed() {
    const t = createTestInstance();
    const c = t.services.contacts;
    const people = [
      { email: "anna.schmidt@alpha.example", name: "Anna", tags: ["lead", "berlin"] },
      { email: "bernd@beta.example", name: "Bernd", tags: ["customer"], status: "unsubscribed" as const },
      { email: "Carla.Schmidt@Gamma.example", name: "Carla", tags: ["lead"] },
      { email: "dora@alpha.example", name: "Dora", tags: [] },
      { email: "emil.sch@delta.example", name: "Emil", tags: ["berlin"], status: "unsubscribed" as const },
    ];
    const ids: string[] = [];
    for (const p of people) {
      ids.push(c.add(t.teamId, p).id);
      t.clock.advance(1000);
    }
    return { t, c, ids };
  }

  it("lists newest first with total and totalPages, and an empty workspace as zero pages", () => {
    const t = createTestInstance();
    expect(t.services.contacts.list(t.teamId, query())).toEqual({ contacts: [], total: 0, page: 1, limit: 20, totalPages: 0 });
    const { c, ids, t: s } = seed();
    const first = c.list(s.teamId, query({ limit: 2 }));
    expect(first.contacts.map((x) => x.id)).toEqual([ids[4], ids[3]]);
    expect(first).toMatchObject({ total: 5, totalPages: 3 });
    const last = c.list(s.teamId, query({ limit: 2, page: 3 }));
    expect(last.contacts.map((x) => x.id)).toEqual([ids[0]]);
    expect(c.list(s.teamId, query({ limit: 2, page: 4 })).contacts).toEqual([]);
  });

  it("orders contacts created in the same millisecond stably by id", () => {
    const t = createTestInstance();
    for (let i = 0; i < 7; i++) t.services.contacts.add(t.teamId, { email: `same${i}@x.example`, name: "S" });
    const all = t.services.contacts.list(t.teamId, query({ limit: 100 })).contacts.map((c) => c.id);
    expect(all).toEqual([...all].sort().reverse());
    const paged = [1, 2, 3].flatMap((page) => t.services.contacts.list(t.teamId, query({ limit: 3, page })).contacts.map((c) => c.id));
    expect(paged).toEqual(all);
  });

  it("searches a case-insensitive substring of the email, for 1 to many characters", () => {
    const { c, ids, t } = seed();
    const emails = (q: Record<string, unknown>) => c.list(t.teamId, query(q)).contacts.map((x) => x.email);
    expect(emails({ search: "SCHMIDT" })).toEqual(["Carla.Schmidt@Gamma.example", "anna.schmidt@alpha.example"]);
    expect(emails({ search: "sch" })).toEqual(["emil.sch@delta.example", "Carla.Schmidt@Gamma.example", "anna.schmidt@alpha.example"]);
    expect(emails({ search: "alpha" })).toEqual(["dora@alpha.example", "anna.schmidt@alpha.example"]);
    expect(emails({ search: "a.s" })).toEqual(["Carla.Schmidt@Gamma.example", "anna.schmidt@alpha.example"]);
    expect(emails({ search: "@" })).toHaveLength(5);
    expect(emails({ search: "rn" })).toEqual(["bernd@beta.example"]);
    expect(emails({ search: "zzz" })).toEqual([]);
    // Trigrams all present but not as one substring: confirmed away by decryption.
    expect(emails({ search: "schmidta" })).toEqual([]);
    expect(c.list(t.teamId, query({ search: "schmidt", limit: 1, page: 2 }))).toMatchObject({ total: 2, totalPages: 2, contacts: [{ id: ids[0] }] });
    // An update is seen by the next search (no stale confirmation of the old email).
    c.update(t.teamId, ids[0]!, { email: "anna.meier@alpha.example" });
    expect(emails({ search: "schmidt" })).toEqual(["Carla.Schmidt@Gamma.example"]);
    expect(emails({ search: "a.meier" })).toEqual(["anna.meier@alpha.example"]);
  });

  it("filters by any of several tags, by status, and by all filters combined", () => {
    const { c, t } = seed();
    const names = (q: Record<string, unknown>) => c.list(t.teamId, query(q)).contacts.map((x) => x.name);
    expect(names({ tags: ["berlin"] })).toEqual(["Emil", "Anna"]);
    expect(names({ tags: ["customer", "berlin"] })).toEqual(["Emil", "Bernd", "Anna"]);
    expect(names({ status: ["unsubscribed"] })).toEqual(["Emil", "Bernd"]);
    expect(names({ status: ["active", "unsubscribed"] })).toHaveLength(5);
    expect(names({ tags: ["berlin", "lead"], status: ["active"] })).toEqual(["Carla", "Anna"]);
    expect(names({ tags: ["berlin", "lead"], status: ["active"], search: "schmidt@a" })).toEqual(["Anna"]);
    expect(names({ tags: ["berlin"], status: ["unsubscribed"], search: "sch" })).toEqual(["Emil"]);
    expect(names({ tags: ["nobody"] })).toEqual([]);
  });

  it("refuses a short search in a workspace too large to scan, and answers common trigrams from the index", async () => {
    const t = createTestInstance();
    // The scan cap (5,000 in the product) made small: the rule is the same at any size.
    const { db, clock } = t.services.deps;
    const contacts = new ContactService({ db, clock, keys: t.services.keys, plans: t.services.plans, shortSearchScanCap: 60 });
    await contacts.addMany(t.teamId, Array.from({ length: 60 }, (_, i) => ({ email: `u${i}@x.example`, name: "U" })));
    // At the cap a short search still scans: `u1` is u1, u10..u19.
    expect(contacts.list(t.teamId, query({ search: "u1" })).total).toBe(11);
    contacts.add(t.teamId, { email: "u60@x.example", name: "U" });
    expect(() => contacts.list(t.teamId, query({ search: "u1" }))).toThrow(/query.search must be at least 3 characters long in a workspace with more than 60 contacts/);
    // Filters that leave the scan under the cap keep it allowed.
    contacts.update(t.teamId, contacts.findByEmail(t.teamId, "u1@x.example")!.id, { tags: ["few"] });
    expect(contacts.list(t.teamId, query({ search: "u1", tags: ["few"] })).total).toBe(1);
    expect(contacts.list(t.teamId, query({ search: "u12@" })).total).toBe(1);
    // A trigram every contact has: answered from the index, same pages as the unfiltered list.
    const common = contacts.list(t.teamId, query({ search: "@X.", page: 3 }));
    const plain = contacts.list(t.teamId, query({ page: 3 }));
    expect(common.total).toBe(61);
    expect(common.contacts.map((c) => c.id)).toEqual(plain.contacts.map((c) => c.id));
    expect(contacts.list(t.teamId, query({ search: "5@x" })).total).toBe(6);
  });
});

describe("key rotation", () => {
  it("re-encrypts every row under the new key in batches while reads, searches and writes continue", async () => {
    const t = createTestInstance();
    const c = t.services.contacts;
    const items = Array.from({ length: 120 }, (_, i) => ({ email: `person${i}@rot.example`, name: `Person ${i}`, phone: `+41 ${i}` }));
    await c.addMany(t.teamId, items);
    const oldKey = t.services.keys.get().currentId;
    const newKey = addKeyToKeyFile(t.dataDir);
    t.services.keys.replace(loadKeyring(t.dataDir, {}));
    const seen: number[] = [];
    const result = await t.services.keyRotation.reencryptAll(() => t.services.keys.get(), {
      batchSize: 25,
      pause: async () => {
        // Between batches: rows under both keys must read, search and deduplicate.
        expect(c.list(t.teamId, query({ search: "person11" })).total).toBe(11);
        expect(c.findByEmail(t.teamId, "PERSON7@rot.example")?.name).toBe("Person 7");
        expect(() => c.add(t.teamId, { email: "person3@rot.example", name: "dup" })).toThrow(/already exists/);
        seen.push(c.count(t.teamId));
      },
    });
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(result).toMatchObject({ keyId: newKey, remaining: 0, rewritten: { contacts: 120 } });
    const keys = t.services.deps.db.prepare("SELECT DISTINCT key_id FROM contacts").all();
    expect(keys).toEqual([{ key_id: newKey }]);
    expect(retireOldKeys(t.dataDir)).toEqual([oldKey]);
    // Only the new key is left: everything still decrypts and the indexes were rebuilt under it.
    const fresh = openInstance({ dataDir: t.dataDir, env: {}, clock: t.clock });
    try {
      expect(fresh.services.keys.get().keyIds).toEqual([newKey]);
      expect(fresh.services.contacts.list(t.teamId, query({ search: "son119@" })).contacts.map((x) => x.phone)).toEqual(["+41 119"]);
      expect(fresh.services.contacts.findByEmail(t.teamId, "person0@rot.example")?.name).toBe("Person 0");
      expect(fresh.services.contacts.list(t.teamId, query({ limit: 100, page: 2 })).contacts).toHaveLength(20);
    } finally {
      fresh.close();
    }
  });

  it("does not overwrite a contact updated while its batch was being prepared", async () => {
    const t = createTestInstance();
    const { id } = t.services.contacts.add(t.teamId, { email: "race@x.example", name: "Before" });
    addKeyToKeyFile(t.dataDir);
    t.services.keys.replace(loadKeyring(t.dataDir, {}));
    // The update writes under the new key first; the rotation finds nothing left to do for it.
    t.services.contacts.update(t.teamId, id, { name: "After" });
    const result = await t.services.keyRotation.reencryptAll(() => t.services.keys.get());
    expect(result.remaining).toBe(0);
    expect(t.services.contacts.get(t.teamId, id).name).toBe("After");
  });
});

describe("key rotation from another process", () => {
  it("a running server follows the key file: new writes use the new key, and reads work after the old key is retired", async () => {
    const server = createTestInstance();
    const c = server.services.contacts;
    await c.addMany(server.teamId, Array.from({ length: 40 }, (_, i) => ({ email: `s${i}@x.example`, name: `S ${i}` })));
    // The admin command opens the same data directory in its own process.
    const admin = openInstance({ dataDir: server.dataDir, env: {}, clock: server.clock });
    try {
      const newKey = addKeyToKeyFile(server.dataDir);
      admin.services.keys.replace(loadKeyring(server.dataDir, {}));
      expect(server.services.keys.refresh().currentId).toBe(newKey);
      const written = c.add(server.teamId, { email: "during@x.example", name: "During" });
      const result = await admin.services.keyRotation.reencryptAll(() => admin.services.keys.get(), {
        batchSize: 10,
        pause: async () => {
          expect(c.list(server.teamId, query({ search: "s3" })).total).toBe(1 + 10);
        },
      });
      expect(result.remaining).toBe(0);
      retireOldKeys(server.dataDir);
      expect(server.services.keys.refresh().keyIds).toEqual([newKey]);
      expect(c.get(server.teamId, written.id).name).toBe("During");
      expect(c.findByEmail(server.teamId, "s39@x.example")?.name).toBe("S 39");
    } finally {
      admin.close();
    }
  });

  it("a keyring from OUTREACH_SECRET_KEY ignores the data directory's key file", () => {
    const t = createTestInstance({ env: { OUTREACH_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") } });
    const before = t.services.keys.get().currentId;
    loadKeyring(t.dataDir, {});
    addKeyToKeyFile(t.dataDir);
    expect(t.services.keys.refresh().currentId).toBe(before);
  });
});
