/**
 * Unsigned LEB128 varints, as the packed posting lists store them (places' term postings,
 * contacts' gram postings): small numbers (differences between sorted ids) take one byte.
 */

/** Appends a varint (exact up to 2^53) at `pos`; returns the next position. */
export function putVarint(out: Buffer, pos: number, n: number): number {
  while (n >= 0x80000000) {
    out[pos++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  while (n >= 0x80) {
    out[pos++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[pos++] = n;
  return pos;
}

/** Reads the varint at `at.pos` and moves `at.pos` past it; a truncated or overlong one is an error. */
export function readVarint(blob: Uint8Array, at: { pos: number }): number {
  let result = 0;
  let scale = 1;
  for (;;) {
    if (at.pos >= blob.length) throw new Error(`corrupt postings: truncated at byte ${at.pos} of ${blob.length}`);
    const byte = blob[at.pos++]!;
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) return result;
    scale *= 128;
    if (scale > 2 ** 56) throw new Error("corrupt postings: varint too long");
  }
}
