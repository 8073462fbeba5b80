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

/** Calls `visit` with each entry's gram, count, first seq and differences (views into `slot`). */
function walkSlot(slot: Uint8Array, visit: (gram: Uint8Array, n: number, first: number, postings: Uint8Array) => boolean | void): void {
  const at = { pos: 0 };
  while (at.pos < slot.length) {
    const gram = slot.subarray(at.pos, at.pos + 8);
    at.pos += 8;
    const n = readVarint(slot, at);
    const first = readVarint(slot, at);
    const length = readVarint(slot, at);
    const postings = slot.subarray(at.pos, at.pos + length);
    at.pos += length;
    if (postings.length !== length) throw new Error("corrupt gram tail: an entry runs past its slot");
    if (visit(gram, n, first, postings) === false) return;
  }
}

/** Every entry of a slot, decoded. */
export function decodeSlot(slot: Uint8Array): SlotEntry[] {
  const out: SlotEntry[] = [];
  walkSlot(slot, (gram, n, first, postings) => {
    const seqs: number[] = [];
    decodeBlock(first, n, postings, seqs);
    out.push({ gram: Buffer.from(gram), seqs });
  });
  return out;
}

/** Appends the seqs `gram` has in `slot` to `out` (ascending); returns how many. */
export function seqsInSlot(slot: Uint8Array, gram: Buffer, out: number[] | undefined): number {
  let count = 0;
  walkSlot(slot, (g, n, first, postings) => {
    const order = gram.compare(g);
    if (order > 0) return true;
    if (order === 0) {
      count = n;
      if (out) decodeBlock(first, n, postings, out);
    }
    // Entries are in key order: past the gram, it is not there.
    return false;
  });
  return count;
}
