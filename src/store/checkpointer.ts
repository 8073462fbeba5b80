import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./db.js";

/** How often the background thread copies the WAL back into the database. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** SQLite's default, restored if the background thread stops unexpectedly. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** Past a checkpoint, the WAL file is cut back to this size instead of staying at its peak. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The worker's code: its own connection to the same file, a PASSIVE checkpoint every
 * interval (it never waits for, nor blocks, the server's readers and writer), closed on
 * "stop". Inline rather than a file beside this one, so that it runs the same from dist/
 * and from the TypeScript sources under test.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
db.pragma("wal_autocheckpoint = 0");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message ? err.message : err) });
  }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stop the thread and close its connection (idempotent). */
  stop(): Promise<void>;
}

/**
 * Move WAL checkpoints off the event loop. With SQLite's automatic checkpoint, the write
 * that crosses 1,000 WAL pages copies them all into the database file and syncs it,
 * inside that request: a contact add dirties ~150 pages (its n-gram postings land on
 * random pages), so every 7th add paid for a checkpoint and every read queued behind it
 * waited too (bench/load.js). Here the server's connection never checkpoints; a worker
 * thread with its own connection does, every second, concurrently with reads and writes
 * (WAL mode allows it). If the thread fails, automatic checkpoints come back.
 */
export function startCheckpointer(db: Db, file: string, log: (line: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma("wal_autocheckpoint = 0");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const fallBack = (why: string) => {
    if (stopping || !db.open) return;
    log(`background checkpoints stopped (${why}): SQLite checkpoints automatically again`);
    db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  };
  worker.on("message", (message: { error?: string }) => {
    if (message.error) log(`background checkpoint failed: ${message.error}`);
  });
  worker.on("error", (err) => fallBack(err.message));
  worker.on("exit", (code) => fallBack(`thread exited with ${code}`));
  // The thread never keeps the process alive on its own.
  worker.unref();
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      // Whoever awaits the stop waits for the thread: an unreferenced worker would let a
      // process with nothing else to do exit before it (and before what follows the await).
      worker.ref();
      worker.postMessage("stop");
      return exited;
    },
  };
}
