import { putVarint, readVarint } from "../../store/varint.js";

/**
 * The lead search's postings as stored (`place-postings.ts`): per (word, grid cell) one
 * BLOB of records of POSTING_STRIDE values [place, lat, lng, fields, flags], ascending by
 * place, varint-encoded with coordinates to 1e-7 degrees (`encodePostings`); and the order
 * of terms they are stored in (SQLite's BINARY order: `compareCodePoints`).
 */

export const POSTING_STRIDE = 5;
/** Coordinates are stored in units of 1e-7 degrees (~1 cm), as OSM itself stores them. */
const COORDINATE_SCALE = 1e7;

/** Strings in code point order (SQLite's BINARY order of UTF-8 text), which JavaScript's UTF-16 `<` is not beyond U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800–U+DFFF, half of a code point above U+FFFF) sorts after U+E000–U+FFFF.
    const sx = x >= 0xd800 && x <= 0xdfff ? x + 0x2000 : x >= 0xe000 ? x - 0x800 : x;
    const sy = y >= 0xd800 && y <= 0xdfff ? y + 0x2000 : y >= 0xe000 ? y - 0x800 : y;
    return sx - sy;
  }
  return a.length - b.length;
}

/**
 * A coordinate as the index stores it: to 1e-7 degrees (~1 cm). Exact for OSM nodes,
 * whose coordinates are whole multiples of it; the stale-cell path rounds the same way,
 * so a search never depends on whether a cell was packed.
 */
export function indexCoordinate(degrees: number): number {
  return Math.round(degrees * COORDINATE_SCALE) / COORDINATE_SCALE;
}

const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (n: number) => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

/**
 * One BLOB of postings from a flat [place, lat, lng, fields, flags]… list (ascending
 * by place): the record count, then per record varints of the place's difference to the
 * previous one, of its coordinates' differences (zigzag, in 1e-7 degrees: within a cell
 * 3 bytes each), of its fields and flags. ~11 bytes a posting instead of 40 as float64s
 * (migration 019); decoding is a loop of varints, ~0.1 ms for the largest read of a 5 km search.
 */
export function encodePostings(values: ArrayLike<number>): Buffer {
  const count = values.length / POSTING_STRIDE;
  const out = Buffer.allocUnsafe(10 + count * 26);
  let pos = putVarint(out, 0, count);
  let place = 0;
  let lat = 0;
  let lng = 0;
  for (let i = 0; i < values.length; i += POSTING_STRIDE) {
    const latE7 = Math.round(values[i + 1]! * COORDINATE_SCALE);
    const lngE7 = Math.round(values[i + 2]! * COORDINATE_SCALE);
    pos = putVarint(out, pos, values[i]! - place);
    pos = putVarint(out, pos, zigzag(latE7 - lat));
    pos = putVarint(out, pos, zigzag(lngE7 - lng));
    pos = putVarint(out, pos, values[i + 3]!);
    pos = putVarint(out, pos, values[i + 4]!);
    place = values[i]!;
    lat = latE7;
    lng = lngE7;
  }
  return out.subarray(0, pos);
}

/** The number of postings in a BLOB (its first varint), without decoding them. */
export function postingsCount(blob: Uint8Array): number {
  return readVarint(blob, { pos: 0 });
}

/** The records of a postings BLOB as a flat Float64Array (stride POSTING_STRIDE). */
export function decodePostings(blob: Uint8Array): Float64Array {
  const at = { pos: 0 };
  const count = readVarint(blob, at);
  if (count * 5 > blob.length) throw new Error(`corrupt postings: ${count} records cannot fit in ${blob.length} bytes`);
  const out = new Float64Array(count * POSTING_STRIDE);
  decodeList(blob, at, count, out, 0);
  if (at.pos !== blob.length) throw new Error(`corrupt postings: ${blob.length - at.pos} bytes after the last record`);
  return out;
}

/**
 * The records of several postings BLOBs written back to back (what a read that
 * concatenates a word's BLOBs in SQL returns: `group_concat`), as one flat Float64Array.
 * Each list is checked as `decodePostings` checks one; an empty list is refused (none is stored).
 */
export function decodePostingLists(blob: Uint8Array): Float64Array {
  // A record takes at least 5 bytes: room for every record the bytes can hold.
  const out = new Float64Array(Math.floor(blob.length / 5) * POSTING_STRIDE);
  const at = { pos: 0 };
  let length = 0;
  while (at.pos < blob.length) {
    const count = readVarint(blob, at);
    if (count === 0) throw new Error(`corrupt postings: an empty list at byte ${at.pos - 1}`);
    if (length + count * POSTING_STRIDE > out.length) throw new Error(`corrupt postings: ${count} more records cannot fit in ${blob.length} bytes`);
    length = decodeList(blob, at, count, out, length);
  }
  return out.subarray(0, length);
}

/** Decodes `count` records at `at` into `out` from index `i`; returns the index after them. */
function decodeList(blob: Uint8Array, at: { pos: number }, count: number, out: Float64Array, i: number): number {
  let place = 0;
  let lat = 0;
  let lng = 0;
  const end = i + count * POSTING_STRIDE;
  for (; i < end; i += POSTING_STRIDE) {
    place += readVarint(blob, at);
    lat += unzigzag(readVarint(blob, at));
    lng += unzigzag(readVarint(blob, at));
    out[i] = place;
    out[i + 1] = lat / COORDINATE_SCALE;
    out[i + 2] = lng / COORDINATE_SCALE;
    out[i + 3] = readVarint(blob, at);
    out[i + 4] = readVarint(blob, at);
  }
  return end;
}

/** One scan result: the postings of one word (or tag term) in the cells read. */
export interface PostingChunk {
  term: string;
  values: Float64Array;
}
