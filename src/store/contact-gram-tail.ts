import type { Statement } from "better-sqlite3";
import type { Db } from "./connection.js";
import { StatementCache } from "./db.js";
import { decodeSlot, encodeSlot, seqsInSlot, slotOf, type SlotEntry } from "./gram-slots.js";

/**
 * The append-only tail of contacts' gram index (migration 032): the postings of the newest
 * contacts by run, where a run is the contacts one import transaction wrote (consecutive
 * seqs; `run` is the lowest). A run is stored as 256 slots, one per first byte of the gram
 * hashes, each a packed list of its grams and their seqs (`gram-slots.ts`).
 *
 * Why: appending an import's seqs to the last block of each of its grams in the packed
 * index (`contact-gram-postings.ts`) read and rewrote ~30 blocks per contact, spread over
 * every page of the current segment, so each commit wrote ~9 times the contacts' size to
 * the WAL (11.5 KB per contact, bench/contacts.js). A run's slots are keyed after every
 * earlier run's, so SQLite appends them at the right edge of the table: nothing is read,
 * and only new pages are written; 256 rows per run, not one per gram (a row per gram
 * cost as much to insert, read back and delete as the blocks it spared). The packed index
 * takes the tail over a sixteenth of the gram space at a time (`PIECES`, `take`), so each
 * of its blocks is rewritten once per ~16 runs instead of once per run, and the tail holds
 * at most ~17 runs: a gram read there is one slot of each.
 */

/** The gram space is merged into the packed index in this many pieces, by the hash's first 4 bits. */
export const PIECES = 16;

/** The run holding `seq`: the greatest run not above it (runs are ascending, consecutive seqs). */
function runOf(runs: readonly number[], seq: number): number | undefined {
  let found: number | undefined;
  for (const run of runs) {
    if (run > seq) break;
    found = run;
  }
  return found;
}

/**
 * The distinct values of `column` (the key's second) of a workspace's rows, ascending, in
 * one statement: a seek per value (a recursive skip-scan), not one statement per value.
 */
export function distinctKeys(table: string, column: string): string {
  return `WITH RECURSIVE k(v) AS (
    SELECT min(${column}) FROM ${table} WHERE team_id = @teamId
    UNION ALL SELECT (SELECT min(${column}) FROM ${table} WHERE team_id = @teamId AND ${column} > k.v) FROM k WHERE k.v IS NOT NULL
  ) SELECT v FROM k WHERE v IS NOT NULL`;
}

/** Slots of piece `p` (16 first bytes). */
function pieceSlots(p: number): { low: number; high: number } {
  const width = 256 / PIECES;
  return { low: p * width, high: (p + 1) * width };
}

export class ContactGramTail {
  private readonly statements: StatementCache;

  constructor(db: Db) {
    this.statements = new StatementCache(db);
  }

  private stmt(sql: string): Statement {
    return this.statements.get(sql);
  }

  /** The workspace's runs, ascending: one seek each (at most ~17, see the header). */
  runs(teamId: string): number[] {
    return this.stmt(distinctKeys("contact_gram_tail", "run")).pluck().all({ teamId }) as number[];
  }

  /**
   * Whether seqs from `run` up can be appended as a new run: no run at or above it (seqs of
   * deleted contacts are given out again, but their postings went with them).
   */
  canAppend(teamId: string, run: number): boolean {
    return this.stmt("SELECT 1 FROM contact_gram_tail WHERE team_id = ? AND run >= ? LIMIT 1").get(teamId, run) === undefined;
  }

  /**
   * Writes new contacts' postings as the run starting at `run` (every seq at or above it;
   * grams as 16 hex characters in key order, seqs ascending): appended at the table's right edge.
   */
  append(teamId: string, run: number, sorted: ReadonlyArray<readonly [string, number[]]>): void {
    const write = this.stmt("INSERT INTO contact_gram_tail (team_id, run, slot, grams) VALUES (?, ?, ?, ?)");
    let entries: SlotEntry[] = [];
    for (const [hex, seqs] of sorted) {
      const gram = Buffer.from(hex, "hex");
      if (entries.length > 0 && slotOf(entries[0]!.gram) !== slotOf(gram)) {
        write.run(teamId, run, slotOf(entries[0]!.gram), encodeSlot(entries));
        entries = [];
      }
      entries.push({ gram, seqs });
    }
    if (entries.length > 0) write.run(teamId, run, slotOf(entries[0]!.gram), encodeSlot(entries));
  }

  /** The gram's slot in each of `runs`, oldest first. */
  private slots(teamId: string, gram: Buffer, runs: readonly number[]): Buffer[] {
    if (runs.length === 0) return [];
    return this
      .stmt("SELECT grams FROM contact_gram_tail WHERE team_id = ? AND run IN (SELECT value FROM json_each(?)) AND slot = ? ORDER BY run")
      .pluck()
      .all(teamId, JSON.stringify(runs), slotOf(gram)) as Buffer[];
  }

  /** The seqs having `gram` in the runs `runs`, ascending. */
  list(teamId: string, gram: Buffer, runs: readonly number[]): number[] {
    const out: number[] = [];
    for (const slot of this.slots(teamId, gram, runs)) seqsInSlot(slot, gram, out);
    return out;
  }

  /** How many seqs have `gram` in the runs `runs` (only the counts are decoded). */
  count(teamId: string, gram: Buffer, runs: readonly number[]): number {
    let total = 0;
    for (const slot of this.slots(teamId, gram, runs)) total += seqsInSlot(slot, gram, undefined);
    return total;
  }

  /** Removes postings found in the tail (others are ignored: they are in the packed index). */
  remove(teamId: string, edits: ReadonlyMap<string, readonly number[]>): void {
    const runs = this.runs(teamId);
    if (runs.length === 0) return;
    // Per run and slot, the seqs to drop per gram.
    const drops = new Map<string, { run: number; slot: number; grams: Map<string, Set<number>> }>();
    for (const [hex, seqs] of edits) {
      const slot = slotOf(Buffer.from(hex.slice(0, 2), "hex"));
      for (const seq of seqs) {
        const run = runOf(runs, seq);
        if (run === undefined) continue;
        const at = `${run}/${slot}`;
        let drop = drops.get(at);
        if (!drop) drops.set(at, (drop = { run, slot, grams: new Map() }));
        let set = drop.grams.get(hex);
        if (!set) drop.grams.set(hex, (set = new Set()));
        set.add(seq);
      }
    }
    const read = this.stmt("SELECT grams FROM contact_gram_tail WHERE team_id = ? AND run = ? AND slot = ?").pluck();
    for (const { run, slot, grams } of drops.values()) {
      const stored = read.get(teamId, run, slot) as Buffer | undefined;
      if (!stored) continue;
      let changed = false;
      const entries = decodeSlot(stored).map((e) => {
        const drop = grams.get(e.gram.toString("hex"));
        if (!drop) return e;
        const seqs = e.seqs.filter((v) => !drop.has(v));
        changed ||= seqs.length !== e.seqs.length;
        return { gram: e.gram, seqs };
      });
      if (changed) this.rewrite(teamId, run, slot, entries);
    }
  }

  /** Removes one seq from every gram of its run: for a contact whose grams cannot be computed. */
  purge(teamId: string, seq: number): void {
    const run = runOf(this.runs(teamId), seq);
    if (run === undefined) return;
    const rows = this.stmt("SELECT slot, grams FROM contact_gram_tail WHERE team_id = ? AND run = ?").raw().all(teamId, run) as Array<[number, Buffer]>;
    for (const [slot, stored] of rows) {
      const entries = decodeSlot(stored);
      if (!entries.some((e) => e.seqs.includes(seq))) continue;
      this.rewrite(teamId, run, slot, entries.map((e) => ({ gram: e.gram, seqs: e.seqs.filter((v) => v !== seq) })));
    }
  }

  /**
   * Reads and deletes every run's slots of piece `piece`: what the packed index takes over
   * next (in the same transaction). Per gram (16 hex characters), seqs ascending.
   */
  take(teamId: string, piece: number): Map<string, number[]> {
    const { low, high } = pieceSlots(piece);
    const read = this.stmt("SELECT grams FROM contact_gram_tail WHERE team_id = ? AND run = ? AND slot >= ? AND slot < ?").pluck();
    const drop = this.stmt("DELETE FROM contact_gram_tail WHERE team_id = ? AND run = ? AND slot >= ? AND slot < ?");
    const out = new Map<string, number[]>();
    for (const run of this.runs(teamId)) {
      for (const stored of read.all(teamId, run, low, high) as Buffer[]) {
        for (const { gram, seqs } of decodeSlot(stored)) {
          const hex = gram.toString("hex");
          const earlier = out.get(hex);
          // Runs come in ascending order: a later run's seqs go after.
          if (earlier) for (const seq of seqs) earlier.push(seq);
          else out.set(hex, seqs);
        }
      }
      drop.run(teamId, run, low, high);
    }
    return out;
  }

  /** A slot's entries replaced (grams left without seqs dropped); none left, the row goes. */
  private rewrite(teamId: string, run: number, slot: number, entries: readonly SlotEntry[]): void {
    const grams = encodeSlot(entries);
    if (grams.length === 0) this.stmt("DELETE FROM contact_gram_tail WHERE team_id = ? AND run = ? AND slot = ?").run(teamId, run, slot);
    else this.stmt("UPDATE contact_gram_tail SET grams = ? WHERE team_id = ? AND run = ? AND slot = ?").run(grams, teamId, run, slot);
  }
}
