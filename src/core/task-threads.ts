import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { parentPort, Worker } from "node:worker_threads";

/**
 * A few worker threads running one kind of task: each task goes to the least busy thread
 * with the buffers it moves (not copies), and its promise settles with the thread's answer.
 * The worker's side is `serveTasks`. Threads end with `close`, after the tasks they hold:
 * never in the middle of one (a thread inside native code, zlib or SQLite, is not
 * interrupted), and a thread that fails or exits fails every task still waiting.
 */
export class TaskThreads<Task, Result> {
  private readonly workers: Array<{ worker: Worker; busy: number; exited: Promise<unknown> }>;
  private readonly waiting = new Map<number, { resolve: (result: Result) => void; reject: (err: unknown) => void; thread: { busy: number } }>();
  private seq = 0;
  private failure: unknown;

  /** One thread per core up to `max`; none on a single core (the caller then works inline). */
  static defaultCount(max: number): number {
    const cores = availableParallelism();
    return cores <= 1 ? 0 : Math.min(max, cores);
  }

  /** Whether idle threads let the process exit (`holdOnlyWhileBusy`). */
  private readonly holdOnlyWhileBusy: boolean;

  /**
   * `what`: the threads' work, for error messages ("a postings thread stopped").
   * `holdOnlyWhileBusy`: threads kept for later use keep the process alive only while they
   * hold a task, so a process that is done exits without closing them.
   */
  constructor(file: string, count: number, options: { workerData?: unknown; what: string; holdOnlyWhileBusy?: boolean }) {
    this.holdOnlyWhileBusy = options.holdOnlyWhileBusy ?? false;
    this.workers = Array.from({ length: count }, () => {
      const worker = new Worker(file, { workerData: options.workerData });
      if (this.holdOnlyWhileBusy) worker.unref();
      worker.on("message", (answer: TaskAnswer<Result>) => this.settle(answer));
      worker.on("error", (err) => this.fail(err));
      const exited = new Promise((resolve) =>
        worker.on("exit", (code) => {
          // A thread ends normally only when closed, after its own tasks; the others may still be busy.
          if (code !== 0) this.fail(new Error(`a ${options.what} thread stopped (exit code ${code})`));
          resolve(code);
        }),
      );
      return { worker, busy: 0, exited };
    });
  }

  get count(): number {
    return this.workers.length;
  }

  /** Runs a task on the least busy thread; the buffers in `transfer` move to it. */
  run(task: Task, transfer: ArrayBuffer[] = []): Promise<Result> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const seq = this.seq++;
    let target = this.workers[0]!;
    for (const candidate of this.workers) if (candidate.busy < target.busy) target = candidate;
    // The first task in hand holds the process until the last one is answered.
    if (this.holdOnlyWhileBusy && this.waiting.size === 0) for (const { worker } of this.workers) worker.ref();
    target.busy++;
    const promise = new Promise<Result>((resolve, reject) => this.waiting.set(seq, { resolve, reject, thread: target }));
    target.worker.postMessage({ seq, task }, transfer);
    return promise;
  }

  private settle(answer: TaskAnswer<Result>): void {
    const waiter = this.waiting.get(answer.seq);
    if (!waiter) return;
    this.waiting.delete(answer.seq);
    // Answered either way: a failed task no longer counts against its thread.
    waiter.thread.busy--;
    if (this.holdOnlyWhileBusy && this.waiting.size === 0) for (const { worker } of this.workers) worker.unref();
    if ("error" in answer) waiter.reject(Object.assign(new Error(answer.error.message), answer.error.code === undefined ? {} : { code: answer.error.code }));
    else waiter.resolve(answer.result);
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
    this.waiting.clear();
  }

  /** Ends the threads once the tasks they hold are done. */
  async close(): Promise<void> {
    this.failure ??= new Error("the threads are closed");
    for (const { worker } of this.workers) worker.postMessage({ stop: true });
    await Promise.all(this.workers.map(({ exited }) => exited));
  }
}

/** A thread's answer to task `seq`: its result, or its error's message (and code, if it has one). */
type TaskAnswer<Result> = { seq: number; result: Result } | { seq: number; error: { message: string; code?: string } };

type HandledTask<Result> = { result: Result; transfer?: ArrayBuffer[] };

/**
 * The worker's side of `TaskThreads`: `handle` answers each task (with the buffers of its
 * result to move back); a thrown error or a rejected promise is the task's failure. An
 * asynchronous `handle` (one built on streams, as nodemailer's composer is) may hold
 * several tasks at once; a synchronous one answers them in turn. On `close`, `onStop` runs
 * after the tasks sent before it have been answered, then the thread ends.
 */
export function serveTasks<Task, Result>(handle: (task: Task) => HandledTask<Result> | Promise<HandledTask<Result>>, onStop?: () => void): void {
  const port = parentPort;
  if (!port) throw new Error("serveTasks runs in a worker thread");
  const pending = new Set<Promise<void>>();
  const fail = (seq: number, err: unknown) => {
    const code = (err as { code?: unknown } | null)?.code;
    port.postMessage({ seq, error: { message: err instanceof Error ? err.message : String(err), ...(typeof code === "string" ? { code } : {}) } });
  };
  const answer = (seq: number, handled: HandledTask<Result>) => port.postMessage({ seq, result: handled.result }, handled.transfer ?? []);
  port.on("message", ({ seq, task, stop }: { seq: number; task: Task; stop?: true }) => {
    if (stop) {
      void Promise.all(pending).then(() => {
        onStop?.();
        port.close();
      });
      return;
    }
    let handled: HandledTask<Result> | Promise<HandledTask<Result>>;
    try {
      handled = handle(task);
    } catch (err) {
      return fail(seq, err);
    }
    if (!(handled instanceof Promise)) return answer(seq, handled);
    const settled = handled.then(
      (h) => answer(seq, h),
      (err: unknown) => fail(seq, err),
    );
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
  });
}

/**
 * A worker's compiled file, `relative` to the module at `moduleUrl`. Running from the
 * TypeScript sources (vitest), no .js file is beside the module, so the build's copy in
 * `dist/` is used: the test run's global setup (test/global-setup.ts) writes it first.
 */
export function compiledWorkerFile(relative: string, moduleUrl: string): string {
  const beside = fileURLToPath(new URL(relative, moduleUrl));
  if (existsSync(beside)) return beside;
  // The last `src` folder of the path is the sources' root.
  const built = beside.replace(/([\\/])src([\\/])(?!.*[\\/]src[\\/])/, "$1dist$2");
  if (!existsSync(built)) throw new Error(`the worker ${built} is missing: run \`npm run build\` first`);
  return built;
}
