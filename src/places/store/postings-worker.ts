import Database from "better-sqlite3";
import { workerData } from "node:worker_threads";
import { serveTasks } from "../../core/task-threads.js";
import { packCellPostings, transferablesOf, type PackedCellPostings } from "./packed-cell-postings.js";
import { cellPostingsReader, inWriteOrder } from "./cell-postings.js";

/**
 * A postings thread (`PostingsRebuild.refreshInParallel`): its own read-only connection
 * to the database file, and per task the rebuilt postings of a chunk of cells, read in one
 * statement (one read snapshot) exactly as the writing connection would read them.
 */
const { file, cacheKib, mmapBytes } = workerData as { file: string; cacheKib: number; mmapBytes: number };
const opened = open();

/** The connection and its reader, or why there is none (told back for every chunk). */
function open(): { db: Database.Database; postingsOf: ReturnType<typeof cellPostingsReader> } | { failure: string } {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    db.pragma(`cache_size = -${cacheKib}`);
    db.pragma(`mmap_size = ${mmapBytes}`);
    return { db, postingsOf: cellPostingsReader(db) };
  } catch (err) {
    return { failure: `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

serveTasks<number[], PackedCellPostings>(
  (cells) => {
    if ("failure" in opened) throw new Error(opened.failure);
    const packed = packCellPostings(inWriteOrder(opened.postingsOf(cells)));
    return { result: packed, transfer: transferablesOf(packed) };
  },
  () => {
    if ("db" in opened) opened.db.close();
  },
);
