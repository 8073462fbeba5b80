import { AppError, type ErrorCode } from "../../../core/errors.js";
import { compiledWorkerFile, TaskThreads } from "../../../core/task-threads.js";
import { decodePbfTask, type PbfFailure, type PbfResult, type PbfTask } from "./pbf-decode.js";

/** Most decoding threads: the reading thread mostly waits for them. */
const MAX_DECODING_THREADS = 4;

/**
 * The PBF importer's decoding threads (`core/task-threads.ts`, running
 * `pbf-decode-worker.ts`): blocks are read on the calling thread and handed to the least
 * busy worker, each moved (not copied) with its task; `decodeInOrder` gives the results
 * back in file order, so the items come out as one thread would make them. With 0 threads
 * the same work runs inline (a single core). Threads are never terminated, only closed
 * between blocks: terminating one while it inflates aborts Node 20 ("close before init" in
 * node_zlib.cc).
 */
export class PbfDecoderThreads {
  private readonly threads: TaskThreads<PbfTask, PbfResult | PbfFailure> | null;

  /** Default: one thread per core, at most 4. */
  static defaultCount(): number {
    return TaskThreads.defaultCount(MAX_DECODING_THREADS);
  }

  constructor(count = PbfDecoderThreads.defaultCount()) {
    this.threads = count === 0 ? null : new TaskThreads(compiledWorkerFile("./pbf-decode-worker.js", import.meta.url), count, { what: "PBF decoding" });
  }

  get count(): number {
    return this.threads?.count ?? 0;
  }

  /** One block's task; its blob's memory moves to the thread. */
  run(task: PbfTask): Promise<PbfResult> {
    if (!this.threads) return Promise.resolve(task).then((t) => unwrap(decodePbfTask(t)));
    const blob = task.blob;
    // A blob that shares its memory with others cannot be moved: it is copied.
    const own = blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength ? blob : Buffer.from(blob);
    return this.threads.run({ ...task, blob: own }, [own.buffer as ArrayBuffer]).then(unwrap);
  }

  /** Ends the threads once the tasks they hold are done (a stopped import leaves a few blocks under way: milliseconds). */
  async close(): Promise<void> {
    await this.threads?.close();
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
