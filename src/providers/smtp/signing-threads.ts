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

/**
 * Composing and RSA-signing a message costs ~1–2 ms of CPU (bench/delivery-speed.js):
 * on the main thread that is time the delivery loop's database work and the relay's
 * sockets wait for. Signing threads take it off the event loop; the loop keeps claiming,
 * recording and talking SMTP meanwhile. Two threads at most: the work is short and the
 * main thread needs a core too. The messages asked for within one turn of the event loop
 * go to the threads as one batch per thread: on a loaded machine each message port
 * hand-over costs far more than its bytes (the profile showed postMessage as the main
 * thread's largest item before batching).
 */
export function startMessageSigner(threads = TaskThreads.defaultCount(2)): MessageSigner {
  if (threads === 0) return { sign: (message, keys) => composeSigned(message, keys), close: async () => {} };
  const pool = new TaskThreads<SigningTask[], SigningAnswer[]>(compiledWorkerFile("./signing-thread.js", import.meta.url), threads, { what: "message signing" });
  let queue: Waiting[] = [];
  let scheduled = false;

  /** A batch the threads could not take (one stopped): signed here, so no message fails for it. */
  const inline = (batch: Waiting[]) => {
    for (const w of batch) composeSigned(w.task.message, w.task.keys).then(w.resolve, w.reject);
  };

  const flush = () => {
    scheduled = false;
    const waiting = queue;
    queue = [];
    const size = Math.ceil(waiting.length / threads);
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
  };
}
