import { cellSql, outsideBound, type CellRanges } from "../core/geo-grid.js";
import { compiledWorkerFile, TaskThreads } from "../core/task-threads.js";
import { SEARCH_FIELDS } from "../core/search-tokens.js";
import type { Statement } from "better-sqlite3";
import type { Db } from "./connection.js";
import { raisePageCache } from "./page-cache.js";
import { rowsOfPacked, type CellPostingsByTerm, type CellPostingsRow, type PackedCellPostings } from "./packed-cell-postings.js";
import { eachTermOf } from "./place-terms.js";
import { PlaceLabelWords } from "./place-label-words.js";
import { putVarint, readVarint } from "./varint.js";


/**
 * The lead search's term index (migrations 013, 019 and 021): one row per (word, grid cell)
 * whose `postings` BLOB holds every place of that cell with that word (`termRowsOf`), as
 * records of POSTING_STRIDE values: [place, lat, lng, fields,
 * flags], ascending by place (varint-encoded, coordinates to 1e-7 degrees: `encodePostings`).
 *
 * Why packed: turning SQLite rows into JavaScript values costs ~1 µs per row and value
 * column (better-sqlite3 builds an array and a number per value). The slowest 5 km
 * searches read ~4,000 postings (a common keyword in the densest towns): 8–18 ms in that
 * conversion alone as rows, against ~85 rows of one BLOB each decoded by a loop of varints.
 *
 * `places` is the truth: triggers on it (migration 019) list the cells a write touches
 * in `place_cells_stale`, and `refresh` rebuilds those cells from their places (found
 * through `places_by_cell`). A stale cell's postings are not used: the search computes
 * that cell's postings from its places instead (`scanStale`), so a search is always
 * exact, also half-way through an import. The importer rebuilds once an import ends
 * (rebuilding per batch would rewrite a dense cell once per batch that touches it), on
 * every core: `refreshInParallel`.
 * Until migration 019 a second copy of every posting, `place_terms`, was kept as rows.
 *
 * Two ways to read: `scanRanges`, per word and range of consecutive cells, one seek each
 * into the table's (term, cell) order (migration 021), and `scan`, per cell and term range
 * through the (cell, term) index, for prefixes of many words in small circles. Both return
 * one row per word, its BLOBs concatenated in SQL.
 */

export const POSTING_STRIDE = 5;
/** Coordinates are stored in units of 1e-7 degrees (~1 cm), as OSM itself stores them. */
const COORDINATE_SCALE = 1e7;

/** Cells rebuilt per transaction: short enough that a server's writes never wait long. */
const CELLS_PER_TRANSACTION = 2_000;

/**
 * Cells per chunk of a parallel rebuild: a quarter of a transaction, so that the threads
 * share the work evenly (dense towns are a few neighbouring chunks).
 */
const CELLS_PER_THREAD_CHUNK = 500;

/** Below this many stale cells a parallel rebuild is not worth starting threads for. */
export const PARALLEL_MIN_CELLS = 1_000;

/** Threads of a parallel rebuild: one per core up to this (the calling thread's writes are a fraction of the work). */
const MAX_POSTINGS_THREADS = 4;

/**
 * How a postings thread reads the file: memory-mapped (up to this many bytes), with a small
 * page cache. Its reads range over the places table (a chunk's places are wherever they were
 * written); through the mapping they come from the operating system's file cache without a
 * copy into a cache of the thread's own. At a million places, reading half the chunks cost
 * 6.6 CPU s mapped, 7.4 with a 256 MiB cache (what `refresh` has) and 7.7 with 128 MiB.
 */
const THREAD_MMAP_BYTES = 2 ** 30;
const THREAD_PAGE_CACHE_KIB = 16 * 1024;

/** What a place's postings are made of, in this order: id, position, SEARCH_FIELDS, category tags. */
const INDEXED_COLUMNS = `id, lat, lng, ${SEARCH_FIELDS.join(", ")}, category_tags`;
type IndexedPlace = [id: number, lat: number, lng: number, ...fields: Array<string | null>];

/**
 * The postings of some places (ascending by id), per term in SQLite's order of terms
 * (BINARY: by UTF-8 bytes, i.e. code points), optionally only the terms `wanted` keeps.
 */
function postingsOfPlaces(places: readonly IndexedPlace[], wanted?: (term: string) => boolean): PostingChunk[] {
  const byTerm = new Map<string, number[]>();
  for (const place of places) addPostingsOf(place, byTerm, wanted);
  return [...byTerm.keys()].sort(compareCodePoints).map((term) => ({ term, values: Float64Array.from(byTerm.get(term)!) }));
}

/** Appends a place's postings ([place, lat, lng, fields, flags] per term) to the lists of `byTerm`. */
function addPostingsOf([id, lat, lng, ...text]: IndexedPlace, byTerm: Map<string, number[]>, wanted?: (term: string) => boolean): void {
  const storedLat = indexCoordinate(lat);
  const storedLng = indexCoordinate(lng);
  eachTermOf(text.slice(0, SEARCH_FIELDS.length), text[SEARCH_FIELDS.length], (term, fields, flags) => {
    if (wanted && !wanted(term)) return;
    let list = byTerm.get(term);
    if (!list) byTerm.set(term, (list = []));
    list.push(id, storedLat, storedLng, fields, flags);
  });
}

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

function inRanges(term: string, ranges: readonly TermRange[]): boolean {
  return ranges.some(([from, to]) => compareCodePoints(term, from) >= 0 && compareCodePoints(term, to) < 0);
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
  private readonly anyStaleStatement;
  private stalePlacesStatement: Statement | undefined;

  constructor(private readonly db: Db) {
    // Every term range of a search in one statement: per range and cell, one range of the
    // (cell, term) index (CROSS JOIN keeps the ranges outside, so each seek has its cell
    // and its terms), then one lookup per row found.
    // A word's BLOBs come back concatenated (`group_concat` keeps a BLOB's bytes as they
    // are in a UTF-8 database; CAST makes the result a BLOB again): one row per word
    // instead of one per cell and word, since each row handed to JavaScript costs ~3 µs
    // (a 100 km circle reads ~2,000 BLOBs: 6 ms as rows, 0.1 ms concatenated).
    this.scanStatement = db
      .prepare(
        `SELECT p.term, CAST(group_concat(p.postings, '') AS BLOB) FROM json_each(?) r CROSS JOIN place_postings p
          WHERE p.cell IN (SELECT value FROM json_each(?)) AND p.term >= r.value ->> 0 AND p.term < r.value ->> 1
          GROUP BY p.term`,
      )
      .raw(true);
    // Driven by (word, first cell, last cell) triples: one seek each into the table's
    // (term, cell) order (migration 021), then neighbouring rows.
    this.rangeScanStatement = db
      .prepare(
        `SELECT p.term, CAST(group_concat(p.postings, '') AS BLOB) FROM json_each(?) j
           JOIN place_postings p ON p.term = j.value ->> 0 AND p.cell BETWEEN j.value ->> 1 AND j.value ->> 2
          GROUP BY p.term`,
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
    // One seek per range (a large circle is ~180 ranges but ~25,000 cells), after a check
    // that anything is stale at all (outside an import, nothing is).
    this.anyStaleStatement = db.prepare("SELECT EXISTS (SELECT 1 FROM place_cells_stale)").pluck();
    this.staleStatement = db
      .prepare("SELECT s.cell FROM json_each(?) r JOIN place_cells_stale s ON s.cell BETWEEN r.value ->> 0 AND r.value ->> 1")
      .pluck();
  }

  /**
   * The postings of these (stale) cells for the terms in the ranges, computed from the
   * cells' places that may lie within `radiusKm` of the centre: one chunk per term, as
   * `scan` returns them.
   */
  scanStale(cells: readonly number[], ranges: readonly TermRange[], center: { lat: number; lng: number }, radiusKm: number): PostingChunk[] {
    // The places of stale cells through places_by_cell. The last condition drops places of
    // the cells' overhang that are surely outside the circle (see `outsideBound`) before
    // they are tokenized.
    this.stalePlacesStatement ??= this.db
      .prepare(
        `SELECT ${INDEXED_COLUMNS} FROM places
          WHERE ${cellSql("lat", "lng")} IN (SELECT value FROM json_each(@cells))
            AND ((lat - @lat) * @k - (lat - @lat) * @k * (lat - @lat) * @k * (lat - @lat) * @k / 6)
              * ((lat - @lat) * @k - (lat - @lat) * @k * (lat - @lat) * @k * (lat - @lat) * @k / 6)
              + @cc * ((lng - @lng) * @k - (lng - @lng) * @k * (lng - @lng) * @k * (lng - @lng) * @k / 6)
              * ((lng - @lng) * @k - (lng - @lng) * @k * (lng - @lng) * @k * (lng - @lng) * @k / 6) <= @h
          ORDER BY id`,
      )
      .raw(true);
    const places = this.stalePlacesStatement.all({ cells: JSON.stringify(cells), ...outsideBound(center, radiusKm) }) as IndexedPlace[];
    return postingsOfPlaces(places, (term) => inRanges(term, ranges));
  }

  /** Which cells of these ranges are stale (their postings must not be read). */
  staleIn(ranges: CellRanges): Set<number> {
    if (this.anyStaleStatement.get() === 0) return new Set();
    return new Set(this.staleStatement.all(JSON.stringify(ranges)) as number[]);
  }

  /** The postings of every term in these ranges in these (fresh) cells: one statement, one row per cell and term. */
  scan(cellsJson: string, ranges: readonly TermRange[]): PostingChunk[] {
    const rows = this.scanStatement.all(JSON.stringify(ranges), cellsJson) as Array<[string, Buffer]>;
    return rows.map(([term, blob]) => ({ term, values: decodePostingLists(blob) }));
  }

  /** The distinct terms of a range that have postings anywhere. */
  termsIn([from, to]: TermRange): string[] {
    return this.termsStatement.all({ from, to }) as string[];
  }

  /**
   * The postings of these words in these ranges of consecutive (fresh) cells: one seek
   * per word and range, then its neighbouring rows. Circles' cells are mostly empty, and
   * a small circle's rows of cells are a few ranges: far fewer seeks than one per cell.
   */
  scanRanges(terms: readonly string[], ranges: ReadonlyArray<readonly [number, number]>): PostingChunk[] {
    const triples: Array<[string, number, number]> = [];
    for (const term of terms) for (const [first, last] of ranges) triples.push([term, first, last]);
    const rows = this.rangeScanStatement.all(JSON.stringify(triples)) as Array<[string, Buffer]>;
    return rows.map(([term, blob]) => ({ term, values: decodePostingLists(blob) }));
  }

  /**
   * The distinct words starting with `prefix` in these (fresh) cells, each with its
   * number of places there: the candidates of a typo correction (a rare path: it reads
   * every such word's postings header, not its places).
   */
  termsInCells(cellsJson: string, prefix: string): Map<string, number> {
    const rows = this.db
      .prepare(`SELECT term, substr(postings, 1, 8) FROM place_postings WHERE cell IN (SELECT value FROM json_each(?)) AND term >= ? AND term < ?`)
      .raw(true)
      .all(cellsJson, prefix, prefix + "\u{10FFFF}") as Array<[string, Buffer]>;
    const counts = new Map<string, number>();
    for (const [term, head] of rows) counts.set(term, (counts.get(term) ?? 0) + postingsCount(head));
    return counts;
  }

  /** How many cells wait for a rebuild. */
  staleCount(): number {
    return (this.db.prepare("SELECT count(*) FROM place_cells_stale").pluck().get() as number) ?? 0;
  }

  /**
   * Rebuild every stale cell's postings from its places, a bounded number of cells per
   * immediate transaction (each cell's rebuild and its removal from the stale list commit
   * together, so a crash half-way leaves only cells still listed as stale). Returns the
   * number of cells rebuilt. Safe to run from two processes at once: a cell rebuilt twice
   * is rebuilt from the same truth.
   */
  refresh(): number {
    const next = this.db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell LIMIT ?").pluck();
    const postingsOfCells = this.postingsOfCells();
    const write = this.chunkWriter();
    const rebuildChunk = this.db.transaction((): number => {
      const cells = next.all(CELLS_PER_TRANSACTION) as number[];
      if (cells.length > 0) write(cells, rowsOf(inWriteOrder(postingsOfCells(cells))));
      return cells.length;
    });
    // A rebuild reads places all over the table, one at a time: a page cache of 256 MiB
    // instead of the connection's 64 keeps more of them (at a million places: -10 % CPU,
    // -20 % time), and is given back when the rebuild ends.
    const restoreCache = raisePageCache(this.db);
    try {
      let total = 0;
      for (;;) {
        const n = rebuildChunk.immediate();
        total += n;
        if (n < CELLS_PER_TRANSACTION) return total;
      }
    } finally {
      restoreCache();
    }
  }

  /**
   * `refresh` with its CPU work (reading each cell's places, tokenising, encoding) on
   * threads (`postings-worker.ts`), each with its own read-only connection to the file,
   * while this connection writes each chunk's rows and clears its cells from the stale list
   * in one immediate transaction, as `refresh` does. With few stale cells, one core, an
   * in-memory database or an open transaction (the threads could not see its writes), it is
   * `refresh`. On abort, the chunks written so far stay written (their cells fresh), the
   * rest stale, the threads ended; it rejects with the signal's reason.
   *
   * Exactness: a thread's BLOBs come from its own read snapshot, which begins after its
   * chunk is handed over. Each chunk is handed over with the writing connection's view of
   * what others wrote (`PRAGMA data_version` changes when another connection commits; the
   * connection's `total_changes()`, less this rebuild's own writes, when anything else
   * writes through it). Inside the chunk's write transaction (which holds the write lock)
   * that view is compared again: unchanged, nothing else wrote between the handover and
   * now, so the snapshot saw exactly the places this connection sees and the BLOBs are
   * written; changed, the chunk is rebuilt from this connection inside the transaction, as
   * `refresh` does. Cells marked stale meanwhile are rebuilt by a `refresh` at the end.
   */
  async refreshInParallel(options: ParallelRefreshOptions = {}): Promise<number> {
    const threads = options.threads ?? TaskThreads.defaultCount(MAX_POSTINGS_THREADS);
    if (threads === 0 || this.db.memory || this.db.inTransaction || this.hasPlaceTerms()) return this.refresh();
    const cells = this.db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell").pluck().all() as number[];
    if (cells.length < (options.minCells ?? PARALLEL_MIN_CELLS)) return this.refresh();
    options.signal?.throwIfAborted();
    const chunkCells = options.chunkCells ?? CELLS_PER_THREAD_CHUNK;
    const dataVersion = this.db.prepare("PRAGMA data_version").pluck();
    const totalChanges = this.db.prepare("SELECT total_changes()").pluck();
    let ownChanges = 0;
    const othersWrites = () => `${dataVersion.get() as number}:${(totalChanges.get() as number) - ownChanges}`;
    const postingsOfCells = this.postingsOfCells();
    const write = this.chunkWriter();
    type Packing = { chunk: number[]; handedOverAt: string; packed: Promise<PackedCellPostings> };
    // Chunks written together, each as it came from its thread or, if others wrote since its
    // hand-over, rebuilt here.
    const writeChunks = this.db.transaction((chunks: ReadonlyArray<{ chunk: number[]; handedOverAt: string; packed: PackedCellPostings }>): void => {
      const now = othersWrites();
      for (const { chunk, handedOverAt, packed } of chunks) {
        if (now === handedOverAt) write(chunk, rowsOfPacked(packed));
        else write(chunk, rowsOf(inWriteOrder(postingsOfCells(chunk))));
      }
    });
    const pool = new TaskThreads<readonly number[], PackedCellPostings>(compiledWorkerFile("./postings-worker.js", import.meta.url), threads, {
      workerData: { file: this.db.name, cacheKib: THREAD_PAGE_CACHE_KIB, mmapBytes: THREAD_MMAP_BYTES },
      what: "postings",
    });
    // The writes land all over the (term, cell)-ordered table: its pages stay in memory.
    const restoreCache = raisePageCache(this.db);
    // Chunks are small, so that the threads share the work evenly, but written several to a
    // transaction, as many cells as `refresh` writes in one: each commit writes every page it
    // touched to the WAL, and a chunk's rows touch pages all over the table (at a million
    // places, one commit per 500 cells made the writes 4 times as costly as the reads).
    // Enough chunks are under way to fill two transactions and keep every thread busy while
    // this thread writes (a few MiB); they are written in the order handed over (ascending cells).
    const transactionCells = options.transactionCells ?? CELLS_PER_TRANSACTION;
    const window = 2 * Math.ceil(transactionCells / chunkCells) + threads * 2;
    const underWay: Packing[] = [];
    let next = 0;
    try {
      while (next < cells.length || underWay.length > 0) {
        const ready: Array<{ chunk: number[]; handedOverAt: string; packed: PackedCellPostings }> = [];
        let readyCells = 0;
        while (readyCells < transactionCells && (next < cells.length || underWay.length > 0)) {
          while (underWay.length < window && next < cells.length) {
            const chunk = cells.slice(next, (next += chunkCells));
            const handedOverAt = othersWrites();
            // The thread's read snapshot begins after this hand-over.
            const packed = pool.run(chunk);
            // Never an unhandled rejection for a chunk nobody waits for any more.
            packed.catch(() => {});
            underWay.push({ chunk, handedOverAt, packed });
          }
          const oldest = underWay.shift()!;
          ready.push({ ...oldest, packed: await oldest.packed });
          readyCells += oldest.chunk.length;
          options.onPacked?.(oldest.chunk);
        }
        options.signal?.throwIfAborted();
        const before = totalChanges.get() as number;
        writeChunks.immediate(ready);
        ownChanges += (totalChanges.get() as number) - before;
      }
    } finally {
      restoreCache();
      await pool.close();
    }
    return cells.length + this.refresh();
  }

  private hasPlaceTerms(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'place_terms'").get() !== undefined;
  }

  /**
   * Writes a chunk of cells' rebuilt rows (in write order): the cells' old rows go, the new
   * ones come, their places' label words are listed (`place-label-words.ts`), the cells
   * leave the stale list. Called inside the chunk's transaction.
   */
  private chunkWriter(): (cells: readonly number[], rows: Iterable<CellPostingsRow>) => void {
    const drop = this.db.prepare("DELETE FROM place_postings WHERE cell IN (SELECT value FROM json_each(?))");
    const insert = this.db.prepare("INSERT INTO place_postings (term, cell, postings) VALUES (?, ?, ?)");
    const clear = this.db.prepare("DELETE FROM place_cells_stale WHERE cell IN (SELECT value FROM json_each(?))");
    const labelWords = PlaceLabelWords.of(this.db);
    return (cells, rows) => {
      const cellsJson = JSON.stringify(cells);
      drop.run(cellsJson);
      for (const [term, cell, blob] of rows) insert.run(term, cell, blob);
      // A fresh cell's label words are listed before a search can read it as packed.
      labelWords?.addFromCells(cellsJson);
      clear.run(cellsJson);
    };
  }

  /**
   * The postings of some cells (ascending) from their places (`cellPostingsReader`).
   * Inside migrations 013 and 015 (which call `refresh` and must keep doing what they
   * did), from the `place_terms` rows that were the index until migration 019 dropped them.
   */
  private postingsOfCells(): (cells: readonly number[]) => Map<string, Array<[cell: number, blob: Buffer]>> {
    if (!this.hasPlaceTerms()) return cellPostingsReader(this.db);
    const rowsOf = this.db.prepare("SELECT term, place, lat, lng, tf, words FROM place_terms WHERE cell = ? ORDER BY term, place").raw(true);
    return (cells) => {
      const out = new Map<string, Array<[number, Buffer]>>();
      for (const cell of cells) {
        const rows = rowsOf.all(cell) as Array<[string, number, number, number, number, number]>;
        for (let start = 0, end = 0; start < rows.length; start = end) {
          const term = rows[start]![0];
          while (end < rows.length && rows[end]![0] === term) end++;
          let list = out.get(term);
          if (!list) out.set(term, (list = []));
          list.push([cell, encodePostings(rows.slice(start, end).flatMap((row) => row.slice(1) as number[]))]);
        }
      }
      return out;
    };
  }
}

export interface ParallelRefreshOptions {
  /** Threads that rebuild (default: one per core, at most 4; 0: `refresh` on this thread). */
  threads?: number;
  /** Below this many stale cells, `refresh` on this thread (starting threads costs more). */
  minCells?: number;
  /** Cells per chunk, each rebuilt by one thread. */
  chunkCells?: number;
  /** Cells written per transaction (whole chunks: at least one). */
  transactionCells?: number;
  signal?: AbortSignal;
  /** Called with a chunk's cells when its postings are back from a thread, just before they are written. */
  onPacked?: (cells: readonly number[]) => void;
}

/**
 * The postings of some cells (ascending) from their places: per term, its cells in
 * ascending order with their encoded BLOBs. One statement reads every place of the cells
 * through `places_by_cell` (one read snapshot). What `refresh` runs on its connection and
 * each postings thread on its own.
 */
export function cellPostingsReader(db: Db): (cells: readonly number[]) => Map<string, Array<[cell: number, blob: Buffer]>> {
  const cellOfRow = cellSql("lat", "lng");
  const placesOf = db
    .prepare(`SELECT ${INDEXED_COLUMNS}, ${cellOfRow} FROM places WHERE ${cellOfRow} IN (SELECT value FROM json_each(?)) ORDER BY ${cellOfRow}, id`)
    .raw(true);
  return (cells) => {
    const out = new Map<string, Array<[number, Buffer]>>();
    let lists = new Map<string, number[]>();
    let cell = -1;
    const flush = () => {
      for (const [term, values] of lists) {
        let rows = out.get(term);
        if (!rows) out.set(term, (rows = []));
        rows.push([cell, encodePostings(values)]);
      }
      lists = new Map();
    };
    // Each row is an IndexedPlace with its cell after it, ordered by cell then id.
    for (const row of placesOf.iterate(JSON.stringify(cells)) as Iterable<IndexedPlace>) {
      const rowCell = row[row.length - 1] as number;
      if (rowCell !== cell) {
        flush();
        cell = rowCell;
      }
      addPostingsOf(row, lists);
    }
    flush();
    return out;
  };
}

/** Rebuilt postings in the table's (term, cell) order, in which they are written: neighbouring rows go to the same pages. */
export function inWriteOrder(byTerm: Map<string, Array<[cell: number, blob: Buffer]>>): CellPostingsByTerm {
  return [...byTerm.keys()].sort(compareCodePoints).map((term) => [term, byTerm.get(term)!] as const);
}

function* rowsOf(byTerm: CellPostingsByTerm): Generator<CellPostingsRow> {
  for (const [term, rows] of byTerm) for (const [cell, blob] of rows) yield [term, cell, blob as Buffer];
}
