import { putVarint, readVarint } from "./varint.js";

/**
 * The packed blocks of contacts' gram postings (`contact-gram-postings.ts`): how seqs are
 * cut into segments and blocks and encoded. Apart from the repository so that migration 023
 * writes the same blocks without importing it (the repository uses the store's statement
 * cache, and `db.ts` runs the migrations).
 */

/**
 * Contacts per segment: the index is ordered by segment before gram, so an import, whose
 * contacts get the newest seqs, writes the blocks of one segment only (a few hundred pages)
 * instead of blocks all over the index; each commit's page writes stay the same as the
 * index grows. A gram costs a row per segment it occurs in, and a read a seek per segment.
 */
export const SEGMENT_SIZE = 8192;

export function segmentOf(seq: number): number {
  return Math.floor(seq / SEGMENT_SIZE);
}

/** Bytes of differences in one block: a small row that stays within its B-tree page. */
export const BLOCK_BYTES = 240;

/** One stored block: its first seq and the differences after it. */
export interface GramBlock {
  first: number;
  n: number;
  postings: Buffer;
}

/**
 * Splits ascending distinct seqs into blocks of at most `maxBytes` of differences (a tail
 * row, `contact-gram-tail.ts`, is one block of any size: Infinity).
 */
export function blocksOf(values: readonly number[], maxBytes = BLOCK_BYTES): GramBlock[] {
  const blocks: GramBlock[] = [];
  // A varint of a seq difference takes at most 8 bytes (seqs stay below 2^53).
  const scratch = Buffer.allocUnsafe(Math.min(maxBytes, values.length * 8) + 10);
  let first = 0;
  let n = 0;
  let pos = 0;
  let previous = 0;
  const close = () => blocks.push({ first, n, postings: Buffer.from(scratch.subarray(0, pos)) });
  for (const value of values) {
    if (n > 0) {
      const before = pos;
      pos = putVarint(scratch, pos, value - previous);
      if (pos <= maxBytes) {
        n++;
        previous = value;
        continue;
      }
      pos = before;
      close();
    }
    first = previous = value;
    n = 1;
    pos = 0;
  }
  if (n > 0) close();
  return blocks;
}

/** Appends the seqs of a block to `out` (ascending); checks the count it was stored with. */
export function decodeBlock(first: number, n: number, postings: Uint8Array, out: number[]): void {
  out.push(first);
  const at = { pos: 0 };
  let value = first;
  for (let i = 1; i < n; i++) out.push((value += readVarint(postings, at)));
  if (at.pos !== postings.length) throw new Error(`corrupt gram postings: block at ${first} has ${postings.length - at.pos} bytes after its ${n} seqs`);
}

