/**
 * Ctrl-C, the same for every command: SIGINT aborts the command's AbortController (the
 * `signal` of its CliIO) with `Interrupted`; the command stops where it is, and `run()`
 * ends it with one line on stderr, "interrupted", and exit 130, whatever error the abort
 * led to (an aborted request, a stream cut short, a prompt closed). A second Ctrl-C ends
 * the process at once (the handler is gone; the shell reports 130 too).
 *
 * A command's part: pass `ctx.io.signal` to its requests and long loops
 * (`signal.throwIfAborted()` between batches), keep what it has committed consistent, and
 * either let the error propagate or print how far it got and return: after Ctrl-C, `run()`
 * exits 130 with "interrupted" either way. (A loop that never yields to the event loop
 * never sees the signal: SIGINT is delivered there.)
 */

/** The reason the signal aborts with on Ctrl-C. Named AbortError, as aborts are. */
export class Interrupted extends Error {
  override name = "AbortError";
  constructor() {
    super("interrupted");
  }
}

/** Install the Ctrl-C handler for one command; returns the function that removes it. */
export function abortOnInterrupt(controller: AbortController): () => void {
  const onSigint = () => controller.abort(new Interrupted());
  process.once("SIGINT", onSigint);
  return () => process.off("SIGINT", onSigint);
}

/** Whether the command was interrupted (Ctrl-C aborted its signal): then it exits 130. */
export function wasInterrupted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof Interrupted;
}
