import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PackedCellPostings } from "./packed-cell-postings.js";

/**
 * Threads that rebuild the packed postings of chunks of grid cells (`postings-worker.ts`),
 * each with its own read-only connection to the database file (WAL mode lets them read
 * while the calling thread writes). A chunk goes to the least busy thread; its result comes
 * back as `PackedCellPostings`, its memory moved, not copied.
 *
 * Workers load the compiled `postings-worker.js`. Running from the TypeScript sources
 * (vitest), that file does not exist beside this one, so the build's copy in `dist/` is
 * used: the test run's global setup (test/global-setup.ts) writes it first.
 */
export class PostingsThreads {
  private readonly workers: Array<{ worker: Worker; busy: number; exited: Promise<unknown> }>;
  private readonly waiting = new Map<number, { resolve: (packed: PackedCellPostings) => void; reject: (err: unknown) => void }>();
  private seq = 0;
  private failure: unknown;

  /** One thread per core, at most 4 (the calling thread's writes are a fraction of the work); none on one core. */
  static defaultCount(): number {
    const cores = availableParallelism();
    return cores <= 1 ? 0 : Math.min(4, cores);
  }

  /** `cacheKib`: each thread's page cache (it reads places all over the table). */
  constructor(file: string, count: number, cacheKib: number) {
    this.workers = Array.from({ length: count }, () => {
      const worker = new Worker(workerFile(), { workerData: { file, cacheKib } });
      worker.on("message", (message: { seq: number; packed: PackedCellPostings } | { seq: number; error: string }) => this.settle(message));
      worker.on("error", (err) => this.fail(err));
      const exited = new Promise((resolve) =>
        worker.on("exit", (code) => {
          this.fail(new Error(code === 0 ? "the postings threads are closed" : `a postings thread stopped (exit code ${code})`));
          resolve(code);
        }),
      );
      return { worker, busy: 0, exited };
    });
  }

  /** The rebuilt postings of these cells, read in one snapshot that begins after this call. */
  pack(cells: readonly number[]): Promise<PackedCellPostings> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const seq = this.seq++;
    let target = this.workers[0]!;
    for (const candidate of this.workers) if (candidate.busy < target.busy) target = candidate;
    target.busy++;
    const promise = new Promise<PackedCellPostings>((resolve, reject) => {
      this.waiting.set(seq, {
        resolve: (packed) => {
          target.busy--;
          resolve(packed);
        },
        reject,
      });
    });
    target.worker.postMessage({ seq, cells });
    return promise;
  }

  private settle(message: { seq: number; packed: PackedCellPostings } | { seq: number; error: string }): void {
    const waiter = this.waiting.get(message.seq);
    if (!waiter) return;
    this.waiting.delete(message.seq);
    if ("error" in message) waiter.reject(new Error(`rebuilding postings in a thread: ${message.error}`));
    else waiter.resolve(message.packed);
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
    this.waiting.clear();
  }

  /** Ends the threads once the chunks they hold are done, and closes their connections. */
  async close(): Promise<void> {
    for (const { worker } of this.workers) worker.postMessage({ stop: true });
    await Promise.all(this.workers.map(({ exited }) => exited));
  }
}

function workerFile(): string {
  const beside = fileURLToPath(new URL("./postings-worker.js", import.meta.url));
  if (existsSync(beside)) return beside;
  const built = beside.replace(/([\\/])src([\\/]store[\\/])/, "$1dist$2");
  if (!existsSync(built)) throw new Error(`the postings worker ${built} is missing: run \`npm run build\` first`);
  return built;
}
