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

/** Composes and signs a message: in signing threads, or inline where there is one core. */
export interface MessageSigner {
  sign(message: ComposableMessage, keys: SigningKeysPem): Promise<Buffer>;
  close(): Promise<void>;
}

/**
 * Composing and RSA-signing a message costs ~1–2 ms of CPU (bench/delivery-speed.js):
 * on the main thread that is time the delivery loop's database work and the relay's
 * sockets wait for. Signing threads take it off the event loop; the loop keeps claiming,
 * recording and talking SMTP meanwhile. Two threads at most: the work is short and
 * the main thread needs a core too.
 */
export function startMessageSigner(threads = TaskThreads.defaultCount(2)): MessageSigner {
  if (threads === 0) return { sign: (message, keys) => composeSigned(message, keys), close: async () => {} };
  const pool = new TaskThreads<SigningTask, Uint8Array>(compiledWorkerFile("./signing-thread.js", import.meta.url), threads, { what: "message signing" });
  return {
    async sign(message, keys) {
      let bytes: Uint8Array;
      try {
        bytes = await pool.run({ message, keys });
      } catch {
        // A thread that stopped must not fail the message: signed here instead. A message
        // that cannot be composed fails here too, with its own error.
        return composeSigned(message, keys);
      }
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    close: () => pool.close(),
  };
}
