import type { Db } from "../../store/connection.js";
import { compiledWorkerFile, TaskThreads } from "../../core/task-threads.js";
import { cellPostingsReader, inWriteOrder, rowsOf } from "./cell-postings.js";
import { rowsOfPacked, type CellPostingsRow, type PackedCellPostings } from "./packed-cell-postings.js";
import { raisePageCache } from "./page-cache.js";
import { PlaceLabelWords } from "./place-label-words.js";

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

/**
 * Rebuilds the packed postings of the cells listed in `place_cells_stale` from their places
 * (`PlacePostingsRepo.refresh` and `refreshInParallel` call it): after an import, a killed
 * import's `places reindex`, and when a migration asked for it at open.
 */
export class PostingsRebuild {
  constructor(private readonly db: Db) {}

  /**
   * Rebuild every stale cell's postings from its places, a bounded number of cells per
   * immediate transaction (each cell's rebuild and its removal from the stale list commit
   * together, so a crash half-way leaves only cells still listed as stale). Returns the
   * number of cells rebuilt. Safe to run from two processes at once: a cell rebuilt twice
   * is rebuilt from the same truth.
   */
  refresh(): number {
    const next = this.db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell LIMIT ?").pluck();
    const postingsOfCells = cellPostingsReader(this.db);
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
    if (threads === 0 || this.db.memory || this.db.inTransaction) return this.refresh();
    const cells = this.db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell").pluck().all() as number[];
    if (cells.length < (options.minCells ?? PARALLEL_MIN_CELLS)) return this.refresh();
    options.signal?.throwIfAborted();
    const chunkCells = options.chunkCells ?? CELLS_PER_THREAD_CHUNK;
    const dataVersion = this.db.prepare("PRAGMA data_version").pluck();
    const totalChanges = this.db.prepare("SELECT total_changes()").pluck();
    let ownChanges = 0;
    const othersWrites = () => `${dataVersion.get() as number}:${(totalChanges.get() as number) - ownChanges}`;
    const postingsOfCells = cellPostingsReader(this.db);
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
