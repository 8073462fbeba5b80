import type { Statement } from "better-sqlite3";
import type { Db } from "./connection.js";
import { StatementCache } from "./db.js";
import { ContactGramTail, distinctKeys, PIECES } from "./contact-gram-tail.js";
import { blocksOf, decodeBlock, segmentOf, type GramBlock } from "./gram-blocks.js";

/**
 * Contacts' blind n-gram index as packed posting lists (migration 023): per workspace,
 * segment (SEGMENT_SIZE consecutive seqs) and gram (8 bytes of keyed hash,
 * `core/blind-index.ts`), the contacts having it, as their `seq` (a small integer per
 * contact, ascending) in blocks of up to BLOCK_BYTES: a row
 * holds the block's first seq (its key), how many seqs it has, and the differences between
 * consecutive seqs as varints. A gram most contacts share costs about one byte per contact,
 * a gram of one contact one short row.
 *
 * Why blocks and not one row per posting (migration 012's layout, ~66 rows per contact and
 * a second index over them, ≈ 14 KB a contact): the rows were most of the database and
 * their random keys most of an import's page writes. Why not one BLOB per gram: appending
 * to it would rewrite the whole list of a common gram on every import transaction; a block
 * caps what one write rewrites. New contacts get the highest seqs, so an import appends
 * to each gram's last block; an update, a rotation or a deletion edits the block its seq
 * falls in.
 *
 * New contacts' postings go first to the append-only tail (`contact-gram-tail.ts`, a run
 * per import transaction); each append then takes one piece (a sixteenth of the gram space)
 * of the whole tail over into the blocks here. Reads join both.
 */

export { BLOCK_BYTES, blocksOf, decodeBlock, SEGMENT_SIZE, segmentOf, type GramBlock } from "./gram-blocks.js";

/** Grams whose last blocks one statement reads (`appendAll`). */
const GRAMS_PER_READ = 500;
/** Blocks one statement writes (`appendAll`). */
const ROWS_PER_WRITE = 32;

/** A block that exists is updated in place (INSERT OR REPLACE would delete and insert it). */
const UPSERT = "ON CONFLICT (team_id, seg, gram, first) DO UPDATE SET n = excluded.n, postings = excluded.postings";

/** `a` and `b` ascending and distinct: their union, ascending. */
function union(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) out.push(a[i++]!);
    else if (a[i]! > b[j]!) out.push(b[j++]!);
    else {
      out.push(a[i++]!);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** `a` without the values of `b` (both ascending). */
function difference(a: readonly number[], b: readonly number[]): number[] {
  const drop = new Set(b);
  return a.filter((v) => !drop.has(v));
}

/** Where a workspace's postings are: the packed index's segments and the tail's runs, each ascending. */
export interface GramLayout {
  segments: number[];
  runs: number[];
}

/** Where a gram's blocks of one segment are. */
interface BlockKey {
  teamId: string;
  seg: number;
  key: Buffer;
}

/** Postings to add or remove in one workspace: per gram (16 hex characters), seqs in any order. */
export type GramEdits = Map<string, number[]>;

/** Adds `seq` to the edits of each of `grams`. */
export function addToEdits(edits: GramEdits, seq: number, grams: Iterable<string>): GramEdits {
  for (const gram of grams) {
    const seqs = edits.get(gram);
    if (seqs) seqs.push(seq);
    else edits.set(gram, [seq]);
  }
  return edits;
}

export class ContactGramPostings {
  private readonly statements: StatementCache;
  private readonly tail: ContactGramTail;
  /** Per workspace, the tail's piece the next append takes over (round robin). */
  private readonly nextPiece = new Map<string, number>();

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
    this.tail = new ContactGramTail(db);
  }

  /** A cache of its own: each of its SQL texts is always run in the same mode (raw, pluck or plain). */
  private stmt(sql: string): Statement {
    return this.statements.get(sql);
  }

  /**
   * The segments and runs holding any of a workspace's postings: one seek each. A search
   * reads each of its grams in these (the same for all its grams).
   */
  layout(teamId: string): GramLayout {
    const segments = this.stmt(distinctKeys("contact_gram_postings", "seg")).pluck().all({ teamId }) as number[];
    return { segments, runs: this.tail.runs(teamId) };
  }

  /** The seqs having `gram` (8-byte key), ascending. */
  list(teamId: string, gram: Buffer, layout = this.layout(teamId)): number[] {
    const rows = this
      .stmt("SELECT first, n, postings FROM contact_gram_postings WHERE team_id = ? AND seg IN (SELECT value FROM json_each(?)) AND gram = ? ORDER BY seg, first")
      .raw()
      .all(teamId, JSON.stringify(layout.segments), gram) as Array<[number, number, Buffer]>;
    const out: number[] = [];
    for (const [first, n, postings] of rows) decodeBlock(first, n, postings, out);
    const recent = this.tail.list(teamId, gram, layout.runs);
    // An update may have put a tail contact's new grams in the blocks: merged, not appended.
    return recent.length === 0 ? out : out.length === 0 ? recent : union(out, recent);
  }

  /** How many contacts have `gram`: a sum over its blocks and tail rows, nothing decoded. */
  count(teamId: string, gram: Buffer, layout = this.layout(teamId)): number {
    const packed = this
      .stmt("SELECT coalesce(sum(n), 0) FROM contact_gram_postings WHERE team_id = ? AND seg IN (SELECT value FROM json_each(?)) AND gram = ?")
      .pluck()
      .get(teamId, JSON.stringify(layout.segments), gram) as number;
    return packed + this.tail.count(teamId, gram, layout.runs);
  }

  /**
   * Adds the postings of new contacts (an import transaction's: seqs above every seq
   * indexed) as a tail run, then takes the next piece of the tail over into the blocks.
   * Seqs that are not new are added to the blocks directly.
   */
  append(teamId: string, edits: GramEdits): void {
    let run = Infinity;
    for (const seqs of edits.values()) for (const seq of seqs) run = Math.min(run, seq);
    if (run === Infinity) return;
    this.db.transaction(() => {
      if (!this.tail.canAppend(teamId, run)) {
        this.add(teamId, edits);
        return;
      }
      this.tail.append(teamId, run, sortedEdits(edits));
      const piece = this.nextPiece.get(teamId) ?? 0;
      this.nextPiece.set(teamId, (piece + 1) % PIECES);
      const taken = this.tail.take(teamId, piece);
      if (taken.size > 0) this.add(teamId, taken);
    })();
  }

  /** Adds postings; the grams of a batch are edited in key order (their pages in one sweep). */
  add(teamId: string, edits: GramEdits): void {
    this.apply(teamId, edits, union);
  }

  /** Removes postings (absent ones are ignored). */
  remove(teamId: string, edits: GramEdits): void {
    this.apply(teamId, edits, difference);
    this.tail.remove(teamId, edits);
  }

  /**
   * Removes one seq from every gram of a workspace: for a contact whose grams cannot be
   * computed (its key is not loaded). Reads the seq's whole segment (and tail run): rare,
   * never on a normal path.
   */
  purge(teamId: string, seq: number): void {
    this.tail.purge(teamId, seq);
    const seg = segmentOf(seq);
    const rows = this.stmt("SELECT gram, first, n, postings FROM contact_gram_postings WHERE team_id = ? AND seg = ? AND first <= ?").raw().all(teamId, seg, seq) as Array<
      [Buffer, number, number, Buffer]
    >;
    for (const [gram, first, n, postings] of rows) {
      const values: number[] = [];
      decodeBlock(first, n, postings, values);
      if (values.includes(seq)) this.replace({ teamId, seg, key: gram }, first, values.filter((v) => v !== seq));
    }
  }

  /** The edits by segment, then gram: the index's key order. */
  private apply(teamId: string, edits: GramEdits, apply: (values: number[], seqs: number[]) => number[]): void {
    for (const [seg, segment] of bySegment(edits)) {
      const sorted = sortedEdits(segment);
      if (apply === union) this.appendAll(teamId, seg, sorted);
      else for (const [gram, seqs] of sorted) this.edit({ teamId, seg, key: Buffer.from(gram, "hex") }, seqs, apply);
    }
  }

  /**
   * Adds to many grams of one segment, as an import does: their last blocks are read with
   * one statement per GRAMS_PER_READ grams and the rewritten blocks written ROWS_PER_WRITE
   * to a statement (per gram a read and a write cost twice as much as the B-tree work
   * itself). A gram with a new seq below its last block's first goes through `edit`.
   */
  private appendAll(teamId: string, seg: number, sorted: ReadonlyArray<readonly [string, number[]]>): void {
    const lasts = new Map<string, GramBlock>();
    const read = this.stmt(
      `SELECT lower(hex(gram)) AS gram, max(first) AS first, n, postings FROM contact_gram_postings
       WHERE team_id = ? AND seg = ? AND gram IN (SELECT unhex(value) FROM json_each(?)) GROUP BY gram`,
    );
    for (let i = 0; i < sorted.length; i += GRAMS_PER_READ) {
      const grams = JSON.stringify(sorted.slice(i, i + GRAMS_PER_READ).map(([gram]) => gram));
      for (const row of read.all(teamId, seg, grams) as Array<GramBlock & { gram: string }>) lasts.set(row.gram, row);
    }
    const rows: unknown[] = [];
    for (const [gram, seqs] of sorted) {
      const key = Buffer.from(gram, "hex");
      const last = lasts.get(gram);
      if (last && seqs[0]! <= last.first) {
        this.edit({ teamId, seg, key }, seqs, union);
        continue;
      }
      const values: number[] = [];
      if (last) decodeBlock(last.first, last.n, last.postings, values);
      // The first block keeps `last.first`: the upsert rewrites it in place.
      for (const b of blocksOf(union(values, seqs))) rows.push(teamId, seg, key, b.first, b.n, b.postings);
    }
    const perRow = 6;
    for (let i = 0; i < rows.length; i += ROWS_PER_WRITE * perRow) {
      const chunk = rows.slice(i, i + ROWS_PER_WRITE * perRow);
      const values = Array.from({ length: chunk.length / perRow }, () => "(?, ?, ?, ?, ?, ?)").join(", ");
      this.stmt(`INSERT INTO contact_gram_postings (team_id, seg, gram, first, n, postings) VALUES ${values} ${UPSERT}`).run(...chunk);
    }
  }

  /**
   * Routes the sorted seqs (of one segment) to the blocks they fall in (the block whose
   * first seq is the greatest not above them; seqs below a gram's first block go to that
   * block), and rewrites each touched block once. An import's seqs are above all others:
   * one block, the last, appended to.
   */
  private edit(at: BlockKey, seqs: number[], apply: (values: number[], seqs: number[]) => number[]): void {
    const { teamId, seg, key } = at;
    const where = "team_id = ? AND seg = ? AND gram = ?";
    const last = this.stmt(`SELECT first, n, postings FROM contact_gram_postings WHERE ${where} ORDER BY first DESC LIMIT 1`).get(teamId, seg, key) as GramBlock | undefined;
    if (!last || seqs[0]! > last.first) {
      // Every seq is in the last block's range (an import's new contacts), or the gram is new here.
      const values: number[] = [];
      if (last) decodeBlock(last.first, last.n, last.postings, values);
      this.replace(at, last?.first, apply(values, seqs));
      return;
    }
    const floor = this.stmt(`SELECT first, n, postings FROM contact_gram_postings WHERE ${where} AND first <= ? ORDER BY first DESC LIMIT 1`);
    const lowest = this.stmt(`SELECT first, n, postings FROM contact_gram_postings WHERE ${where} ORDER BY first LIMIT 1`);
    const after = this.stmt(`SELECT first FROM contact_gram_postings WHERE ${where} AND first > ? ORDER BY first LIMIT 1`).pluck();
    for (let i = 0; i < seqs.length; ) {
      const block = (floor.get(teamId, seg, key, seqs[i]) ?? lowest.get(teamId, seg, key)) as GramBlock | undefined;
      if (!block) {
        this.replace(at, undefined, apply([], seqs.slice(i)));
        return;
      }
      const next = after.get(teamId, seg, key, block.first) as number | undefined;
      let j = i;
      while (j < seqs.length && (next === undefined || seqs[j]! < next)) j++;
      const values: number[] = [];
      decodeBlock(block.first, block.n, block.postings, values);
      this.replace(at, block.first, apply(values, seqs.slice(i, j)));
      i = j;
    }
  }

  /** Writes `values` (ascending) as the blocks replacing the one at `oldFirst`. */
  private replace(at: BlockKey, oldFirst: number | undefined, values: number[]): void {
    const { teamId, seg, key } = at;
    const blocks = blocksOf(values);
    if (oldFirst !== undefined && blocks[0]?.first !== oldFirst) {
      this.stmt("DELETE FROM contact_gram_postings WHERE team_id = ? AND seg = ? AND gram = ? AND first = ?").run(teamId, seg, key, oldFirst);
    }
    const write = this.stmt(`INSERT INTO contact_gram_postings (team_id, seg, gram, first, n, postings) VALUES (?, ?, ?, ?, ?, ?) ${UPSERT}`);
    for (const b of blocks) write.run(teamId, seg, key, b.first, b.n, b.postings);
  }
}

/**
 * The edits split by segment, ascending. An import's seqs are consecutive: nearly always
 * one segment, then the edits are passed on as they are.
 */
function bySegment(edits: GramEdits): Array<[number, GramEdits]> {
  let low = Infinity;
  let high = -Infinity;
  for (const seqs of edits.values()) for (const seq of seqs) (low = Math.min(low, seq)), (high = Math.max(high, seq));
  if (low === Infinity) return [];
  if (segmentOf(low) === segmentOf(high)) return [[segmentOf(low), edits]];
  const out = new Map<number, GramEdits>();
  for (const [gram, seqs] of edits) {
    for (const seq of seqs) {
      const seg = segmentOf(seq);
      let segment = out.get(seg);
      if (!segment) out.set(seg, (segment = new Map()));
      addToEdits(segment, seq, [gram]);
    }
  }
  return [...out.entries()].sort((a, b) => a[0] - b[0]);
}

/** Whether `seqs` is strictly ascending (as an import's are: no copy, no sort). */
function ascending(seqs: readonly number[]): boolean {
  for (let i = 1; i < seqs.length; i++) if (seqs[i]! <= seqs[i - 1]!) return false;
  return true;
}

/** Edits in the index's key order (lower-case hex sorts as its bytes), seqs ascending and distinct. */
function sortedEdits(edits: GramEdits): Array<[string, number[]]> {
  return [...edits.keys()].sort().map((gram) => {
    const seqs = edits.get(gram)!;
    return [gram, ascending(seqs) ? seqs : [...new Set(seqs)].sort((x, y) => x - y)];
  });
}
