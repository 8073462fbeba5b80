import { createPrivateKey, type KeyObject } from "node:crypto";
import { serveTasks } from "../../core/task-threads.js";
import { composeSigned } from "./message-signer.js";
import type { SigningAnswer, SigningTask } from "./signing-threads.js";

/**
 * One signing thread (signing-threads.ts): composes and DKIM-signs batches of messages off
 * the main thread. A key arrives as PEM and is parsed once per thread, then reused for
 * every message of its domain.
 */
const parsed = new Map<string, KeyObject>();

function keyOf(pem: string): KeyObject {
  let key = parsed.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    // A few sending domains at a time; rotated keys fall out.
    if (parsed.size >= 64) parsed.delete(parsed.keys().next().value!);
    parsed.set(pem, key);
  }
  return key;
}

async function signOne({ message, keys }: SigningTask): Promise<SigningAnswer> {
  try {
    const raw = await composeSigned(message, {
      rsa: { ...keys.rsa, privateKey: keyOf(keys.rsa.privateKey) },
      ...(keys.ed25519 ? { ed25519: { ...keys.ed25519, privateKey: keyOf(keys.ed25519.privateKey) } } : {}),
    });
    // Copied, not moved: a small Buffer may share Node's pooled memory with others.
    return { raw };
  } catch (err) {
    // One message that cannot be composed fails alone, not its batch.
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Batches in the order they came, one after another: interleaved (as nodemailer's streams
 * would run them) every batch would finish at about the time the last one does, and the
 * relay would wait for all of them.
 */
let previous: Promise<unknown> = Promise.resolve();

serveTasks<SigningTask[], SigningAnswer[]>((batch) => {
  const signed = previous.then(() => Promise.all(batch.map(signOne)));
  previous = signed;
  return signed.then((result) => ({ result }));
});
