import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { packCellPostings, transferablesOf } from "./packed-cell-postings.js";
import { cellPostingsReader, inWriteOrder } from "./place-postings.js";

/**
 * A postings thread (`postings-threads.ts`): its own read-only connection to the database
 * file, and per message the rebuilt postings of a chunk of cells, read in one statement
 * (one read snapshot) exactly as the writing connection would read them.
 */
const { file, cacheKib } = workerData as { file: string; cacheKib: number };
const opened = open();

/** The connection and its reader, or why there is none (told back with every chunk). */
function open(): { db: Database.Database; postingsOf: ReturnType<typeof cellPostingsReader> } | { failure: string } {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    db.pragma(`cache_size = -${cacheKib}`);
    return { db, postingsOf: cellPostingsReader(db) };
  } catch (err) {
    return { failure: `cannot read ${file}: ${messageOf(err)}` };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

parentPort!.on("message", ({ seq, cells, stop }: { seq: number; cells: number[]; stop?: true }) => {
  // After the chunks sent before it: the thread ends between statements.
  if (stop) {
    if ("db" in opened) opened.db.close();
    return parentPort!.close();
  }
  if ("failure" in opened) return parentPort!.postMessage({ seq, error: opened.failure });
  try {
    const packed = packCellPostings(inWriteOrder(opened.postingsOf(cells)));
    parentPort!.postMessage({ seq, packed }, transferablesOf(packed));
  } catch (err) {
    parentPort!.postMessage({ seq, error: messageOf(err) });
  }
});
