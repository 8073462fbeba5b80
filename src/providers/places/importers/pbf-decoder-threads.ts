import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { AppError, type ErrorCode } from "../../../core/errors.js";
import { decodePbfTask, type PbfFailure, type PbfResult, type PbfTask } from "./pbf-decode.js";

/**
 * The PBF importer's decoding threads: blocks are read on the calling thread and handed
 * to the least busy worker, each moved (not copied) with its task; `decodeInOrder` gives
 * the results back in file order, so the items come out as one thread would make them.
 * With 0 threads the same work runs inline (a single core).
 *
 * Workers load the compiled `pbf-decode-worker.js`. Running from the TypeScript sources
 * (vitest), that file does not exist beside this one, so the build's copy in `dist/` is
 * used: the test run's global setup (test/global-setup.ts) writes it first.
 */
export class PbfDecoderThreads {
  private readonly workers: Array<{ worker: Worker; busy: number; exited: Promise<unknown> }>;
  private readonly waiting = new Map<number, { resolve: (result: PbfResult) => void; reject: (err: unknown) => void }>();
  private seq = 0;
  private failure: unknown;

  /** Default: one thread per core (the reading thread mostly waits for them), at most 4. */
  static defaultCount(): number {
    const cores = availableParallelism();
    return cores <= 1 ? 0 : Math.min(4, cores);
  }

  constructor(count = PbfDecoderThreads.defaultCount()) {
    this.workers = Array.from({ length: count }, () => {
      const worker = new Worker(workerFile());
      worker.on("message", ({ seq, result }: { seq: number; result: PbfResult | PbfFailure }) => this.settle(seq, result));
      worker.on("error", (err) => this.fail(err));
      const exited = new Promise((resolve) =>
        worker.on("exit", (code) => {
          if (code !== 0) this.fail(new Error(`a PBF decoding thread stopped (exit code ${code})`));
          resolve(code);
        }),
      );
      return { worker, busy: 0, exited };
    });
  }

  get count(): number {
    return this.workers.length;
  }

  /** One block's task; its blob's memory moves to the thread. */
  run(task: PbfTask): Promise<PbfResult> {
    if (this.workers.length === 0) return Promise.resolve(task).then((t) => unwrap(decodePbfTask(t)));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const seq = this.seq++;
    let target = this.workers[0]!;
    for (const candidate of this.workers) if (candidate.busy < target.busy) target = candidate;
    target.busy++;
    const blob = task.blob;
    // A blob that shares its memory with others cannot be moved: it is copied.
    const own = blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength ? blob : Buffer.from(blob);
    const promise = new Promise<PbfResult>((resolve, reject) => {
      this.waiting.set(seq, {
        resolve: (result) => {
          target.busy--;
          resolve(result);
        },
        reject,
      });
    });
    target.worker.postMessage({ seq, task: { ...task, blob: own } }, [own.buffer as ArrayBuffer]);
    return promise;
  }

  private settle(seq: number, result: PbfResult | PbfFailure): void {
    const waiter = this.waiting.get(seq);
    if (!waiter) return;
    this.waiting.delete(seq);
    try {
      waiter.resolve(unwrap(result));
    } catch (err) {
      waiter.reject(err);
    }
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
  }

  /**
   * Ends the threads once the tasks they hold are done (a stopped import leaves a few
   * blocks under way: milliseconds). Never `terminate()` a thread that may be inflating:
   * Node 20 aborts the process ("close before init" in node_zlib.cc).
   */
  async close(): Promise<void> {
    this.failure ??= new Error("the PBF decoding threads are closed");
    for (const { worker } of this.workers) worker.postMessage({ stop: true });
    await Promise.all(this.workers.map(({ exited }) => exited));
  }
}

function unwrap(result: PbfResult | PbfFailure): PbfResult {
  if (!("error" in result)) return result;
  const { message, code } = result.error;
  throw code ? new AppError(code as ErrorCode, message) : new Error(message);
}

/**
 * Each task's result in the order of the inputs, with up to `window` tasks under way (a
 * few per thread keep every thread busy while the caller works on the oldest result). A
 * caller that stops early leaves the rest to finish unread.
 */
export async function* decodeInOrder<In, Out>(inputs: AsyncIterable<In>, start: (input: In) => Promise<Out> | null, window: number): AsyncGenerator<[In, Out | null]> {
  const queue: Array<[In, Promise<Out> | null]> = [];
  const next = async (): Promise<[In, Out | null]> => {
    const [input, promise] = queue.shift()!;
    return [input, promise === null ? null : await promise];
  };
  for await (const input of inputs) {
    const promise = start(input);
    // Never an unhandled rejection for a result nobody waits for any more; the one awaited still throws.
    promise?.catch(() => {});
    queue.push([input, promise]);
    if (queue.length >= window) yield await next();
  }
  while (queue.length > 0) yield await next();
}

function workerFile(): string {
  const beside = fileURLToPath(new URL("./pbf-decode-worker.js", import.meta.url));
  if (existsSync(beside)) return beside;
  const built = beside.replace(/([\\/])src([\\/]providers[\\/]places[\\/]importers[\\/])/, "$1dist$2");
  if (!existsSync(built)) throw new Error(`the PBF decoding worker ${built} is missing: run \`npm run build\` first`);
  return built;
}
