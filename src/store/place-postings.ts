import { endianness } from "node:os";
import type { Db } from "./connection.js";

/**
 * The term index packed for reading (migration 013): one row per (grid cell, word) whose
 * `postings` BLOB holds every place of that cell with that word, as little-endian
 * float64 records of POSTING_STRIDE values: [place, lat, lng, fields, flags], ascending
 * by place (the same values as the `place_terms` rows it is built from; `fields` and
 * `flags` are that table's columns `tf` and `words`, see `TermRow`).
 *
 * Why: turning SQLite rows into JavaScript values costs ~1 µs per row and value column
 * (better-sqlite3 builds an array and a number per value). The slowest 5 km searches read
 * ~4,000 rows (a common keyword in the densest towns): 8–18 ms in that conversion alone,
 * against ~0.4 ms for SQLite to walk them. Packed, the same search reads ~85 rows of one
 * BLOB each and decodes them with a typed-array view.
 *
 * `place_terms` stays the truth, kept in sync by its triggers on every place write; its
 * own triggers list the cells they touch in `place_cells_stale`. A stale cell's postings
 * are not used: the search reads that cell's `place_terms` rows instead, so a search is
 * always exact, also half-way through an import. `refresh` rebuilds stale cells from
 * `place_terms`; the importer calls it once an import ends (rebuilding per batch would
 * rewrite a dense cell once per batch that touches it).
 *
 * Two ways to read: `scan`, one seek per cell and term range (small circles), and
 * `scanRanges`, per word and range of consecutive cells through the (term, cell) index
 * (large circles, whose cells are mostly empty).
 */

export const POSTING_STRIDE = 5;
const BYTES = POSTING_STRIDE * 8;
const LITTLE_ENDIAN = endianness() === "LE";

/** Cells rebuilt per transaction: short enough that a server's writes never wait long. */
const CELLS_PER_TRANSACTION = 2_000;

/** `place_terms` rows of one cell in key order (term, place), as `refresh` reads them. */
type CellRow = [term: string, place: number, lat: number, lng: number, fields: number, flags: number];

/** One BLOB of postings from a flat [place, lat, lng, fields, flags]… list. */
export function encodePostings(values: Float64Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const out = Buffer.allocUnsafe(values.length * 8);
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i]!, i * 8);
  return out;
}

/**
 * The records of a postings BLOB as a flat Float64Array (stride POSTING_STRIDE). A view
 * over the BLOB's own memory where alignment and byte order allow (the usual case), a
 * decoded copy otherwise.
 */
export function decodePostings(blob: Uint8Array): Float64Array {
  if (blob.byteLength % BYTES !== 0) throw new Error(`corrupt postings: ${blob.byteLength} bytes is not a multiple of ${BYTES}`);
  const n = blob.byteLength / 8;
  if (LITTLE_ENDIAN && blob.byteOffset % 8 === 0) return new Float64Array(blob.buffer, blob.byteOffset, n);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/** One scan result: a cell's postings for one word (or tag term). */
export interface PostingChunk {
  term: string;
  values: Float64Array;
}

/** A range of terms `[from, to)`: a word prefix `[p, p + U+10FFFF)` or one term `[t, t + U+0001)`. */
export type TermRange = readonly [from: string, to: string];

/** The terms starting with `prefix`. */
export function prefixRange(prefix: string): TermRange {
  return [prefix, prefix + "\u{10FFFF}"];
}

/** Exactly this term (no term of the index holds a U+0000). */
export function exactRange(term: string): TermRange {
  return [term, term + "\u0001"];
}

export class PlacePostingsRepo {
  private readonly scanStatement;
  private readonly rangeScanStatement;
  private readonly termsStatement;
  private readonly staleStatement;

  constructor(private readonly db: Db) {
    // Every term range of a search in one statement: per range and cell, one B-tree range
    // (CROSS JOIN keeps the ranges outside, so each seek has its cell and its terms).
    this.scanStatement = db
      .prepare(
        `SELECT p.term, p.postings FROM json_each(?) r CROSS JOIN place_postings p
          WHERE p.cell IN (SELECT value FROM json_each(?)) AND p.term >= r.value ->> 0 AND p.term < r.value ->> 1`,
      )
      .raw(true);
    // Driven by (word, first cell, last cell) triples through the (term, cell) index.
    this.rangeScanStatement = db
      .prepare(
        `SELECT p.term, p.postings FROM json_each(?) j
           JOIN place_postings p ON p.term = j.value ->> 0 AND p.cell BETWEEN j.value ->> 1 AND j.value ->> 2`,
      )
      .raw(true);
    // The distinct words with a prefix, one index seek each (a skip scan).
    this.termsStatement = db
      .prepare(
        `WITH RECURSIVE t(term) AS (
           SELECT min(term) FROM place_postings WHERE term >= @from AND term < @to
           UNION ALL
           SELECT (SELECT min(term) FROM place_postings WHERE term > t.term AND term < @to) FROM t WHERE t.term IS NOT NULL
         ) SELECT term FROM t WHERE term IS NOT NULL`,
      )
      .pluck();
    this.staleStatement = db.prepare("SELECT cell FROM place_cells_stale WHERE cell IN (SELECT value FROM json_each(?))").pluck();
  }

  /** Which of these cells are stale (their postings must not be read). */
  staleAmong(cellsJson: string): Set<number> {
    return new Set(this.staleStatement.all(cellsJson) as number[]);
  }

  /** The postings of every term in these ranges in these (fresh) cells: one statement, one row per cell and term. */
  scan(cellsJson: string, ranges: readonly TermRange[]): PostingChunk[] {
    const rows = this.scanStatement.all(JSON.stringify(ranges), cellsJson) as Array<[string, Buffer]>;
    return rows.map(([term, blob]) => ({ term, values: decodePostings(blob) }));
  }

  /** The distinct terms of a range that have postings anywhere. */
  termsIn([from, to]: TermRange): string[] {
    return this.termsStatement.all({ from, to }) as string[];
  }

  /**
   * The postings of these words in these ranges of consecutive (fresh) cells: one index
   * range per word and range, then one lookup per non-empty cell. For circles whose cells
   * are mostly empty, far fewer seeks than `scan`'s one per cell.
   */
  scanRanges(terms: readonly string[], ranges: ReadonlyArray<readonly [number, number]>): PostingChunk[] {
    const triples: Array<[string, number, number]> = [];
    for (const term of terms) for (const [first, last] of ranges) triples.push([term, first, last]);
    const rows = this.rangeScanStatement.all(JSON.stringify(triples)) as Array<[string, Buffer]>;
    return rows.map(([term, blob]) => ({ term, values: decodePostings(blob) }));
  }

  /**
   * The distinct words starting with `prefix` in these (fresh) cells, each with its
   * number of places there: the candidates of a typo correction (a rare path: it reads
   * every such word's postings header, not its places).
   */
  termsInCells(cellsJson: string, prefix: string): Map<string, number> {
    const rows = this.db
      .prepare(`SELECT term, length(postings) FROM place_postings WHERE cell IN (SELECT value FROM json_each(?)) AND term >= ? AND term < ?`)
      .raw(true)
      .all(cellsJson, prefix, prefix + "\u{10FFFF}") as Array<[string, number]>;
    const counts = new Map<string, number>();
    for (const [term, bytes] of rows) counts.set(term, (counts.get(term) ?? 0) + bytes / BYTES);
    return counts;
  }

  /** How many cells wait for a rebuild. */
  staleCount(): number {
    return (this.db.prepare("SELECT count(*) FROM place_cells_stale").pluck().get() as number) ?? 0;
  }

  /**
   * Rebuild every stale cell's postings from `place_terms`, a bounded number of cells per
   * immediate transaction (each cell's rebuild and its removal from the stale list commit
   * together, so a crash half-way leaves only cells still listed as stale). Returns the
   * number of cells rebuilt. Safe to run from two processes at once: a cell rebuilt twice
   * is rebuilt from the same truth.
   */
  refresh(): number {
    const next = this.db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell LIMIT ?").pluck();
    const rowsOf = this.db.prepare("SELECT term, place, lat, lng, tf, words FROM place_terms WHERE cell = ? ORDER BY term, place").raw(true);
    const drop = this.db.prepare("DELETE FROM place_postings WHERE cell = ?");
    const insert = this.db.prepare("INSERT INTO place_postings (cell, term, postings) VALUES (?, ?, ?)");
    const clear = this.db.prepare("DELETE FROM place_cells_stale WHERE cell = ?");
    const rebuildChunk = this.db.transaction((): number => {
      const cells = next.all(CELLS_PER_TRANSACTION) as number[];
      for (const cell of cells) {
        drop.run(cell);
        const rows = rowsOf.all(cell) as CellRow[];
        let start = 0;
        while (start < rows.length) {
          const term = rows[start]![0];
          let end = start;
          while (end < rows.length && rows[end]![0] === term) end++;
          const values = new Float64Array((end - start) * POSTING_STRIDE);
          for (let i = start, o = 0; i < end; i++) {
            const row = rows[i]!;
            for (let k = 1; k <= POSTING_STRIDE; k++) values[o++] = row[k] as number;
          }
          insert.run(cell, term, encodePostings(values));
          start = end;
        }
        clear.run(cell);
      }
      return cells.length;
    });
    let total = 0;
    for (;;) {
      const n = rebuildChunk.immediate();
      total += n;
      if (n < CELLS_PER_TRANSACTION) return total;
    }
  }
}
