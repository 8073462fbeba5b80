import { putVarint, readVarint } from "./varint.js";
import { blocksOf, decodeBlock } from "./gram-blocks.js";

/**
 * The format of a tail slot (`contact-gram-tail.ts`): the grams of one run whose hash
 * starts with one byte, in key order, each followed by its seqs. An entry is the gram's
 * 8 bytes, then varints: how many seqs, the first seq, the length in bytes of the
 * differences after it, and those differences (a block of `gram-blocks.ts`, any size).
 */

/** One gram of a slot: its key (8 bytes) and its seqs, ascending. */
export interface SlotEntry {
  gram: Buffer;
  seqs: number[];
}

/** The slot of a gram: its first byte. */
export function slotOf(gram: Buffer): number {
  return gram[0]!;
}

/** Packs entries (grams ascending, each with seqs ascending) into one slot value. */
export function encodeSlot(entries: readonly SlotEntry[]): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.allocUnsafe(8 + 3 * 9);
  for (const { gram, seqs } of entries) {
    if (seqs.length === 0) continue;
    const [block] = blocksOf(seqs, Infinity);
    gram.copy(head, 0);
    let pos = putVarint(head, 8, block!.n);
    pos = putVarint(head, pos, block!.first);
    pos = putVarint(head, pos, block!.postings.length);
    parts.push(Buffer.from(head.subarray(0, pos)), block!.postings);
  }
  return Buffer.concat(parts);
}

/**
 * Calls `visit` with each entry's offset (its gram's 8 bytes start there), count, first seq
 * and where its differences lie; nothing is copied (a search walks a slot per tail run).
 */
function walkSlot(slot: Buffer, visit: (at: number, n: number, first: number, start: number, end: number) => boolean | void): void {
  const cursor = { pos: 0 };
  while (cursor.pos < slot.length) {
    const at = cursor.pos;
    cursor.pos += 8;
    const n = readVarint(slot, cursor);
    const first = readVarint(slot, cursor);
    const length = readVarint(slot, cursor);
    const start = cursor.pos;
    cursor.pos += length;
    if (cursor.pos > slot.length) throw new Error("corrupt gram tail: an entry runs past its slot");
    if (visit(at, n, first, start, cursor.pos) === false) return;
  }
}

/** Every entry of a slot, decoded. */
export function decodeSlot(slot: Buffer): SlotEntry[] {
  const out: SlotEntry[] = [];
  walkSlot(slot, (at, n, first, start, end) => {
    const seqs: number[] = [];
    decodeBlock(first, n, slot.subarray(start, end), seqs);
    out.push({ gram: Buffer.from(slot.subarray(at, at + 8)), seqs });
  });
  return out;
}

/** Appends the seqs `gram` has in `slot` to `out` (ascending); returns how many. */
export function seqsInSlot(slot: Buffer, gram: Buffer, out: number[] | undefined): number {
  let count = 0;
  walkSlot(slot, (at, n, first, start, end) => {
    const order = gram.compare(slot, at, at + 8);
    if (order > 0) return true;
    if (order === 0) {
      count = n;
      if (out) decodeBlock(first, n, slot.subarray(start, end), out);
    }
    // Entries are in key order: past the gram, it is not there.
    return false;
  });
  return count;
}
