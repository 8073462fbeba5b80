import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContactGramPostings, type GramEdits } from "../../src/store/contact-gram-postings.js";
import { PIECES } from "../../src/store/contact-gram-tail.js";
import { DATABASE_FILE_NAME, openDatabase, type Db } from "../../src/store/db.js";
import { blocksOf, segmentOf } from "../../src/store/gram-blocks.js";
import { decodeSlot, encodeSlot, seqsInSlot } from "../../src/store/gram-slots.js";
import { contactGramTail } from "../../src/store/migrations/032-contact-gram-tail.js";
import { MIGRATIONS } from "../../src/store/migrations/index.js";
import { tempDir } from "../helpers/data-dir.js";

/** A seeded PRNG: every run edits the same way. */
function prng(seed: number): () => number {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x80000000);
}

const TEAMS = ["team_a", "team_b"];

function addTeams(db: Db): Db {
  for (const id of TEAMS) {
    db.prepare("INSERT INTO teams (id, name, slug, plan, created_at) VALUES (?, ?, ?, 'self-hosted', '2026-01-01T00:00:00.000Z')").run(id, id, id);
  }
  return db;
}

/** Grams spread over every slot and piece: 8 random bytes each, as hex. */
function randomGrams(rand: () => number, count: number): string[] {
  return Array.from({ length: count }, () => Buffer.from(Array.from({ length: 8 }, () => Math.floor(rand() * 256))).toString("hex"));
}

const key = (gram: string) => Buffer.from(gram, "hex");
const tailRuns = (db: Db, teamId: string) => db.prepare("SELECT COUNT(DISTINCT run) FROM contact_gram_tail WHERE team_id = ?").pluck().get(teamId) as number;

/** The truth kept beside the index: per workspace and gram, the seqs. */
class Truth {
  readonly sets = new Map<string, Set<number>>();
  set(teamId: string, gram: string): Set<number> {
    const k = `${teamId}/${gram}`;
    let s = this.sets.get(k);
    if (!s) this.sets.set(k, (s = new Set()));
    return s;
  }
  expectMatches(postings: ContactGramPostings, grams: readonly string[], label: string): void {
    for (const teamId of TEAMS) {
      for (const gram of grams) {
        const expected = [...this.set(teamId, gram)].sort((a, b) => a - b);
        expect(postings.list(teamId, key(gram)), `${label}: ${teamId} ${gram}`).toEqual(expected);
        expect(postings.count(teamId, key(gram)), `${label}: count ${teamId} ${gram}`).toBe(expected.length);
      }
    }
  }
}

describe("gram tail slots", () => {
  it("pack grams with their seqs and give back one gram's seqs, or none, without decoding the others", () => {
    const rand = prng(3);
    const grams = randomGrams(rand, 40)
      .map((g) => `ab${g.slice(2)}`)
      .sort();
    const entries = grams.map((g, i) => ({ gram: key(g), seqs: Array.from({ length: 1 + (i % 7) * 40 }, (_, j) => 1000 + j * (1 + (i % 3) * 200)) }));
    const slot = encodeSlot(entries);
    expect(decodeSlot(slot)).toEqual(entries);
    for (const e of entries) {
      const out: number[] = [];
      expect(seqsInSlot(slot, e.gram, out)).toBe(e.seqs.length);
      expect(out).toEqual(e.seqs);
    }
    expect(seqsInSlot(slot, key("ab00000000000000"), [])).toBe(0);
    expect(seqsInSlot(slot, key("abffffffffffffff"), [])).toBe(0);
    expect(() => decodeSlot(slot.subarray(0, slot.length - 1))).toThrow(/corrupt/);
  });
});

describe("gram postings with the append-only tail (migration 032)", () => {
  it("keeps every list equal to a plain set through imports, updates, deletions and purges, and the tail at most PIECES + 1 runs", () => {
    const db = addTeams(openDatabase(join(tempDir(), DATABASE_FILE_NAME)));
    const postings = new ContactGramPostings(db);
    const rand = prng(17);
    const grams = randomGrams(rand, 60);
    // A few common grams (most contacts have them), the rest rare.
    const common = grams.slice(0, 4);
    const truth = new Truth();
    const seqGrams = new Map<number, { teamId: string; grams: string[] }>();
    let next = 1;
    let maxRuns = 0;
    for (let round = 0; round < 80; round++) {
      const teamId = TEAMS[round % 3 === 0 ? 1 : 0]!;
      // An import transaction: new seqs, above every other, each with some grams.
      const edits: GramEdits = new Map();
      const size = 1 + Math.floor(rand() * 60);
      for (let i = 0; i < size; i++) {
        const seq = next++;
        const mine = [...new Set([...common.filter(() => rand() < 0.7), ...Array.from({ length: 3 }, () => grams[Math.floor(rand() * grams.length)]!)])];
        seqGrams.set(seq, { teamId, grams: mine });
        for (const g of mine) {
          edits.set(g, [...(edits.get(g) ?? []), seq]);
          truth.set(teamId, g).add(seq);
        }
      }
      db.transaction(() => postings.append(teamId, edits))();
      maxRuns = Math.max(maxRuns, tailRuns(db, teamId));
      // Now and then an update (grams replaced), a deletion (grams removed) or a purge (key not loaded) of any contact.
      const target = 1 + Math.floor(rand() * (next - 1));
      const contact = seqGrams.get(target);
      if (contact && round % 4 === 1) {
        const fresh = [common[3]!, grams[Math.floor(rand() * grams.length)]!];
        db.transaction(() => {
          postings.remove(contact.teamId, new Map(contact.grams.map((g) => [g, [target]])));
          postings.add(contact.teamId, new Map(fresh.map((g) => [g, [target]])));
        })();
        for (const g of contact.grams) truth.set(contact.teamId, g).delete(target);
        for (const g of fresh) truth.set(contact.teamId, g).add(target);
        contact.grams = [...new Set(fresh)];
      } else if (contact && round % 4 === 2) {
        db.transaction(() => postings.remove(contact.teamId, new Map(contact.grams.map((g) => [g, [target]]))))();
        for (const g of contact.grams) truth.set(contact.teamId, g).delete(target);
        seqGrams.delete(target);
      } else if (contact && round % 4 === 3) {
        db.transaction(() => postings.purge(contact.teamId, target))();
        for (const g of contact.grams) truth.set(contact.teamId, g).delete(target);
        seqGrams.delete(target);
      }
      if (round % 10 === 9) truth.expectMatches(postings, grams, `round ${round}`);
    }
    truth.expectMatches(postings, grams, "end");
    // Both places are used, and the tail stays short for searches to read.
    expect(db.prepare("SELECT COUNT(*) FROM contact_gram_postings").pluck().get()).toBeGreaterThan(0);
    expect(db.prepare("SELECT COUNT(*) FROM contact_gram_tail").pluck().get()).toBeGreaterThan(0);
    expect(maxRuns).toBeGreaterThan(PIECES / 2);
    expect(maxRuns).toBeLessThanOrEqual(PIECES + 1);
  });

  it("leaves both tables as they were when the import transaction fails after its append", () => {
    const db = addTeams(openDatabase(join(tempDir(), DATABASE_FILE_NAME)));
    const postings = new ContactGramPostings(db);
    const grams = randomGrams(prng(5), 30);
    const truth = new Truth();
    for (let r = 0; r < 20; r++) {
      const seqs = Array.from({ length: 10 }, (_, i) => r * 10 + i + 1);
      db.transaction(() => postings.append("team_a", new Map(grams.map((g) => [g, seqs]))))();
      for (const g of grams) for (const s of seqs) truth.set("team_a", g).add(s);
    }
    const snapshot = (table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2, 3`).all();
    const before = [snapshot("contact_gram_postings"), snapshot("contact_gram_tail")];
    expect(() =>
      db.transaction(() => {
        postings.append("team_a", new Map(grams.map((g) => [g, [1000, 1001]])));
        throw new Error("disk full");
      })(),
    ).toThrow("disk full");
    expect([snapshot("contact_gram_postings"), snapshot("contact_gram_tail")]).toEqual(before);
    truth.expectMatches(new ContactGramPostings(db), grams, "after the rollback");
  });

  it("goes with its workspace", () => {
    const db = addTeams(openDatabase(join(tempDir(), DATABASE_FILE_NAME)));
    const postings = new ContactGramPostings(db);
    const grams = randomGrams(prng(9), 10);
    postings.append("team_a", new Map(grams.map((g) => [g, [1, 2]])));
    postings.append("team_b", new Map(grams.map((g) => [g, [3]])));
    db.prepare("DELETE FROM teams WHERE id = 'team_a'").run();
    expect(db.prepare("SELECT COUNT(*) FROM contact_gram_tail WHERE team_id = 'team_a'").pluck().get()).toBe(0);
    for (const g of grams) expect(postings.list("team_b", key(g))).toEqual([3]);
  });

  it("reads a data directory written before the tail existed, and appends after its postings", () => {
    const file = join(tempDir(), DATABASE_FILE_NAME);
    const old = addTeams(openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(contactGramTail))));
    expect(old.prepare("SELECT name FROM sqlite_schema WHERE name = 'contact_gram_tail'").get()).toBeUndefined();
    const grams = randomGrams(prng(21), 20);
    const truth = new Truth();
    // Blocks as the code before migration 032 wrote them: every posting in the packed index.
    const insert = old.prepare("INSERT INTO contact_gram_postings (team_id, seg, gram, first, n, postings) VALUES (?, ?, ?, ?, ?, ?)");
    grams.forEach((g, i) => {
      const seqs = Array.from({ length: 50 + i * 40 }, (_, j) => 1 + j * (1 + (i % 5)));
      for (const seq of seqs) truth.set("team_a", g).add(seq);
      for (const seg of [...new Set(seqs.map(segmentOf))]) {
        for (const b of blocksOf(seqs.filter((s) => segmentOf(s) === seg))) insert.run("team_a", seg, key(g), b.first, b.n, b.postings);
      }
    });
    old.close();
    const db = openDatabase(file);
    const postings = new ContactGramPostings(db);
    truth.expectMatches(postings, grams, "upgraded");
    let next = 5000;
    for (let r = 0; r < PIECES + 3; r++) {
      const seqs = [next++, next++];
      db.transaction(() => postings.append("team_a", new Map(grams.map((g) => [g, seqs]))))();
      for (const g of grams) for (const s of seqs) truth.set("team_a", g).add(s);
    }
    truth.expectMatches(postings, grams, "after imports");
  });
});
