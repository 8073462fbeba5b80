/**
 * The rebuilt postings of a chunk of grid cells as a postings thread hands them to the
 * thread that writes them (`PostingsRebuild.refreshInParallel`): a few typed arrays whose memory moves
 * between threads without a copy, and one string, instead of a structured clone of
 * thousands of small Buffers and arrays (one object per row to build, copy and collect).
 *
 * Rows are kept in the order they are written: by term (runs of rows with the same term),
 * then by cell.
 */
export interface PackedCellPostings {
  /** The distinct terms, joined by U+0000 (no term of the index holds one). */
  terms: string;
  /** Per term, how many rows (cells) it has. */
  runs: Uint32Array;
  /** Per row, its cell. */
  cells: Uint32Array;
  /** Per row, where its BLOB ends in `bytes` (each starts where the previous one ends). */
  ends: Uint32Array;
  /** Every row's BLOB, back to back. */
  bytes: Uint8Array;
}

/** One row of the packed postings table: a term, a cell and that cell's BLOB for it. */
export type CellPostingsRow = readonly [term: string, cell: number, postings: Buffer];

/** Rows in write order, grouped by term: per term, its cells ascending with their BLOBs. */
export type CellPostingsByTerm = ReadonlyArray<readonly [term: string, rows: ReadonlyArray<readonly [cell: number, postings: Uint8Array]>]>;

export function packCellPostings(byTerm: CellPostingsByTerm): PackedCellPostings {
  const terms: string[] = [];
  const runs: number[] = [];
  let rowCount = 0;
  let byteCount = 0;
  for (const [term, rows] of byTerm) {
    terms.push(term);
    runs.push(rows.length);
    rowCount += rows.length;
    for (const [, blob] of rows) byteCount += blob.length;
  }
  const cells = new Uint32Array(rowCount);
  const ends = new Uint32Array(rowCount);
  const bytes = new Uint8Array(byteCount);
  let row = 0;
  let end = 0;
  for (const [, rows] of byTerm) {
    for (const [cell, blob] of rows) {
      bytes.set(blob, end);
      end += blob.length;
      cells[row] = cell;
      ends[row++] = end;
    }
  }
  return { terms: terms.join("\u0000"), runs: Uint32Array.from(runs), cells, ends, bytes };
}

/** The buffers to move (not copy) with a packed chunk. */
export function transferablesOf(packed: PackedCellPostings): ArrayBuffer[] {
  return [packed.runs.buffer, packed.cells.buffer, packed.ends.buffer, packed.bytes.buffer] as ArrayBuffer[];
}

/** The rows of a packed chunk in write order; each BLOB is a view of `bytes` (no copy). */
export function* rowsOfPacked({ terms, runs, cells, ends, bytes }: PackedCellPostings): Generator<CellPostingsRow> {
  if (runs.length === 0) return;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const names = terms.split("\u0000");
  if (names.length !== runs.length) throw new Error(`packed postings: ${names.length} terms for ${runs.length} runs`);
  let row = 0;
  let start = 0;
  for (let t = 0; t < names.length; t++) {
    for (const last = row + runs[t]!; row < last; row++) {
      yield [names[t]!, cells[row]!, buffer.subarray(start, ends[row]!)];
      start = ends[row]!;
    }
  }
  if (row !== cells.length) throw new Error(`packed postings: ${cells.length - row} rows without a term`);
}
