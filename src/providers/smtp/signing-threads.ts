import { compiledWorkerFile, TaskThreads } from "../../core/task-threads.js";
import type { Ed25519DkimKey } from "./dkim-ed25519.js";
import { composeSigned, type ComposableMessage, type DkimKey } from "./message-signer.js";

/** The keys as a thread receives them: PEM text (a key object does not cross threads as a string would). */
export interface SigningKeysPem {
  rsa: DkimKey & { privateKey: string };
  ed25519?: Ed25519DkimKey & { privateKey: string };
}

export interface SigningTask {
  message: ComposableMessage;
  keys: SigningKeysPem;
}

/** A thread's answer to one message of a batch: its bytes, or why it could not be composed. */
export type SigningAnswer = { raw: Uint8Array } | { error: string };

/** Composes and signs a message: in signing threads, or inline where there is one core. */
export interface MessageSigner {
  sign(message: ComposableMessage, keys: SigningKeysPem): Promise<Buffer>;
  close(): Promise<void>;
}

interface Waiting {
  task: SigningTask;
  resolve: (raw: Buffer) => void;
  reject: (err: unknown) => void;
}

/** Messages per hand-over to a thread at most. */
const BATCH_MOST = 6;

/**
 * Composing and RSA-signing a message costs ~1–2 ms of CPU (bench/delivery-speed.js):
 * on the main thread that is time the delivery loop's database work and the relay's
 * sockets wait for. Signing threads take it off the event loop; the loop keeps claiming,
 * recording and talking SMTP meanwhile. Two threads at most: the work is short and the
 * main thread needs a core too. The messages asked for within one turn of the event loop
 * go to the threads in batches of a few: on a loaded machine each message port hand-over
 * costs far more than its bytes (the profile showed postMessage as the main thread's
 * largest item before batching), and a batch comes back only when all of it is signed.
 */
export function startMessageSigner(threads = TaskThreads.defaultCount(2), options: { holdOnlyWhileBusy?: boolean } = {}): MessageSigner & { readonly broken: boolean } {
  if (threads === 0) return { sign: (message, keys) => composeSigned(message, keys), close: async () => {}, broken: false };
  const pool = new TaskThreads<SigningTask[], SigningAnswer[]>(compiledWorkerFile("./signing-thread.js", import.meta.url), threads, {
    what: "message signing",
    holdOnlyWhileBusy: options.holdOnlyWhileBusy ?? false,
  });
  let queue: Waiting[] = [];
  let scheduled = false;
  let broken = false;

  /** A batch the threads could not take (one stopped): signed here, so no message fails for it. */
  const inline = (batch: Waiting[]) => {
    broken = true;
    for (const w of batch) composeSigned(w.task.message, w.task.keys).then(w.resolve, w.reject);
  };

  const flush = () => {
    scheduled = false;
    const waiting = queue;
    queue = [];
    // Several small batches rather than one per thread: a thread answers each as it is done
    // (signing-thread.ts takes them in turn), so the first messages reach the relay after a
    // few signatures instead of after a whole pass's share.
    const size = Math.min(BATCH_MOST, Math.ceil(waiting.length / threads));
    for (let at = 0; at < waiting.length; at += size) {
      const batch = waiting.slice(at, at + size);
      pool.run(batch.map((w) => w.task)).then(
        (answers) =>
          answers.forEach((answer, i) => {
            const w = batch[i]!;
            if ("error" in answer) w.reject(new Error(answer.error));
            else w.resolve(Buffer.from(answer.raw.buffer, answer.raw.byteOffset, answer.raw.byteLength));
          }),
        () => inline(batch),
      );
    }
  };

  return {
    sign(message, keys) {
      return new Promise<Buffer>((resolve, reject) => {
        queue.push({ task: { message, keys }, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    close: () => pool.close(),
    get broken() {
      return broken;
    },
  };
}

/** How long the shared threads outlive their last user: the next delivery loop of the process finds them started and warm. */
const SHARED_IDLE_MS = 60_000;

let shared: { signer: ReturnType<typeof startMessageSigner>; users: number; idle?: NodeJS.Timeout } | undefined;

/**
 * The process's signing threads, shared by its delivery loops. A thread's start costs
 * ~100 ms of CPU (a worker and nodemailer loaded), and a new one signs its first few
 * hundred messages with code the JIT has not compiled yet: started per loop, that cost
 * ~0.8 ms of CPU a message over a 1,000-message run (bench/delivery-speed.js). The threads hold the process only
 * while they sign, and end a minute after the last loop let them go; threads that failed
 * are replaced at the next loop. `close` lets go of this loop's use.
 */
export function sharedMessageSigner(): MessageSigner {
  if (!shared || shared.signer.broken) shared = { signer: startMessageSigner(TaskThreads.defaultCount(2), { holdOnlyWhileBusy: true }), users: 0 };
  const entry = shared;
  entry.users++;
  clearTimeout(entry.idle);
  let released = false;
  return {
    sign: (message, keys) => entry.signer.sign(message, keys),
    async close() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      entry.idle = setTimeout(() => {
        if (entry.users > 0) return;
        if (shared === entry) shared = undefined;
        void entry.signer.close();
      }, SHARED_IDLE_MS);
      entry.idle.unref();
    },
  };
}
