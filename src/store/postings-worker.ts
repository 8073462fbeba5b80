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
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma(`cache_size = -${cacheKib}`);
const postingsOf = cellPostingsReader(db);

parentPort!.on("message", ({ seq, cells, stop }: { seq: number; cells: number[]; stop?: true }) => {
  // After the chunks sent before it: the thread ends between statements.
  if (stop) {
    db.close();
    return parentPort!.close();
  }
  try {
    const packed = packCellPostings(inWriteOrder(postingsOf(cells)));
    parentPort!.postMessage({ seq, packed }, transferablesOf(packed));
  } catch (err) {
    parentPort!.postMessage({ seq, error: err instanceof Error ? err.message : String(err) });
  }
});
