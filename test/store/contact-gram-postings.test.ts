import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BLOCK_BYTES, blocksOf, ContactGramPostings, decodeBlock, type GramEdits } from "../../src/store/contact-gram-postings.js";
import { DATABASE_FILE_NAME, openDatabase, type Db } from "../../src/store/db.js";
import { tempDir } from "../helpers/data-dir.js";

/** A seeded PRNG: every run edits the same way. */
function prng(seed: number): () => number {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x80000000);
}

/** A database with workspaces team_a and team_b (the postings' rows belong to a workspace). */
function openDb(): Db {
  const db = openDatabase(join(tempDir(), DATABASE_FILE_NAME));
  for (const id of ["team_a", "team_b"]) {
    db.prepare("INSERT INTO teams (id, name, slug, plan, created_at) VALUES (?, ?, ?, 'self-hosted', '2026-01-01T00:00:00.000Z')").run(id, id, id);
  }
  return db;
}

const GRAMS = ["00000000000000a1", "00000000000000a2", "7f000000000000ff", "ffffffffffffffff"];
const key = (gram: string) => Buffer.from(gram, "hex");

describe("packed gram postings", () => {
  it("encodes ascending seqs into blocks of at most BLOCK_BYTES that decode back, whatever the gaps", () => {
    const rand = prng(11);
    let seq = 0;
    // Dense runs (1-byte gaps) and sparse ones (3-byte gaps).
    const values = Array.from({ length: 3000 }, (_, i) => (seq += i % 500 < 250 ? 1 : 1 + Math.floor(rand() * 100_000)));
    const blocks = blocksOf(values);
    expect(blocks.length).toBeGreaterThan(5);
    for (const b of blocks) expect(b.postings.length).toBeLessThanOrEqual(BLOCK_BYTES);
    const decoded: number[] = [];
    for (const b of blocks) decodeBlock(b.first, b.n, b.postings, decoded);
    expect(decoded).toEqual(values);
    expect(() => decodeBlock(blocks[0]!.first, blocks[0]!.n + 1, blocks[0]!.postings, [])).toThrow(/corrupt postings/);
  });

  it("keeps each gram's list equal to a plain set through random adds (appends and inserts) and removes", () => {
    const db = openDb();
    const postings = new ContactGramPostings(db);
    const rand = prng(7);
    const truth = new Map<string, Set<number>>(GRAMS.map((g) => [g, new Set()]));
    const teams = ["team_a", "team_b"];
    for (let round = 0; round < 60; round++) {
      const teamId = teams[round % 2]!;
      const adding = round % 5 !== 4;
      const edits: GramEdits = new Map();
      for (const gram of GRAMS) {
        // Mostly new high seqs (an import), some anywhere below (updates, rotations).
        const seqs = Array.from({ length: 1 + Math.floor(rand() * 300) }, () =>
          adding && rand() < 0.7 ? round * 2000 + Math.floor(rand() * 2000) : Math.floor(rand() * (round + 1) * 2000),
        );
        edits.set(gram, seqs);
        const set = truth.get(`${teamId}/${gram}`) ?? new Set<number>();
        truth.set(`${teamId}/${gram}`, set);
        for (const s of seqs) adding ? set.add(s) : set.delete(s);
      }
      db.transaction(() => (adding ? postings.add(teamId, edits) : postings.remove(teamId, edits)))();
    }
    for (const teamId of teams) {
      for (const gram of GRAMS) {
        const expected = [...(truth.get(`${teamId}/${gram}`) ?? [])].sort((a, b) => a - b);
        expect(postings.list(teamId, key(gram)), `${teamId} ${gram}`).toEqual(expected);
        expect(postings.count(teamId, key(gram))).toBe(expected.length);
      }
    }
    // Blocks stay small and keyed by their first seq.
    const rows = db.prepare("SELECT first, n, postings FROM contact_gram_postings").all() as Array<{ first: number; n: number; postings: Buffer }>;
    expect(rows.length).toBeGreaterThan(20);
    for (const r of rows) {
      expect(r.postings.length).toBeLessThanOrEqual(BLOCK_BYTES);
      const seqs: number[] = [];
      decodeBlock(r.first, r.n, r.postings, seqs);
      expect(seqs[0]).toBe(r.first);
    }
  });

  it("goes with its workspace", () => {
    const db = openDb();
    const postings = new ContactGramPostings(db);
    postings.add("team_a", new Map([[GRAMS[0]!, [1, 2, 3]]]));
    postings.add("team_b", new Map([[GRAMS[0]!, [4]]]));
    db.prepare("DELETE FROM teams WHERE id = 'team_a'").run();
    expect(postings.list("team_a", key(GRAMS[0]!))).toEqual([]);
    expect(postings.list("team_b", key(GRAMS[0]!))).toEqual([4]);
  });

  it("purges one seq from every gram of a workspace, and only there", () => {
    const db = openDb();
    const postings = new ContactGramPostings(db);
    const all = new Map(GRAMS.map((g) => [g, Array.from({ length: 400 }, (_, i) => i * 3)]));
    postings.add("team_a", all);
    postings.add("team_b", new Map(GRAMS.map((g) => [g, [300, 301]])));
    postings.purge("team_a", 300);
    postings.purge("team_a", 0);
    for (const gram of GRAMS) {
      expect(postings.list("team_a", key(gram))).toEqual(all.get(gram)!.filter((s) => s !== 300 && s !== 0));
      expect(postings.list("team_b", key(gram))).toEqual([300, 301]);
    }
  });
});
