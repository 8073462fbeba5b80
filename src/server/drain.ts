import type { ApiApp } from "./app.js";
import type { Logger } from "./errors.js";
import type { RunningServer } from "./listen.js";

/**
 * When, within the shutdown window, in-flight work is told to finish with what it has:
 * early enough that a cut stream still has time to write its last line (2 s, or a quarter
 * of a short window), late enough that most requests finish on their own.
 */
export function cutoffDelayMs(timeoutMs: number): number {
  return timeoutMs - Math.min(2000, Math.floor(timeoutMs / 4));
}

export interface DrainOutcome {
  /** Every connection closed on its own before the deadline. */
  finished: boolean;
  /** Connections still open at the deadline, dropped. */
  dropped: number;
}

/**
 * Graceful shutdown of a serving app, within `timeoutMs`:
 * 1. the listening socket closes; requests arriving on open connections get 503; idle
 *    keep-alive connections are closed, busy ones once their response has gone out;
 * 2. at the cut-off (`cutoffDelayMs`) in-flight work is cut cleanly: enrichment stops as
 *    if its budget had run out, so a lead search still ends with its `complete` line
 *    (pending leads and a retry token) instead of an error;
 * 3. at the deadline every connection still open is dropped.
 * It never touches the database: the caller closes it once this resolves, so no request
 * that can still be answered ever finds it closed.
 */
export async function drain(app: ApiApp, server: RunningServer, options: { timeoutMs: number; log: Logger }): Promise<DrainOutcome> {
  app.startDraining();
  const closed = server.stopAccepting();
  const timers: NodeJS.Timeout[] = [];
  const after = (ms: number) => new Promise<"deadline">((resolve) => timers.push(setTimeout(() => resolve("deadline"), ms)));
  try {
    timers.push(
      setTimeout(() => {
        if (server.connections > 0) options.log(`shutdown: cutting in-flight work short (${server.connections} connection(s) still open)`);
        app.cutInFlight();
      }, cutoffDelayMs(options.timeoutMs)),
    );
    const first = await Promise.race([closed.then(() => "closed" as const), after(options.timeoutMs)]);
    if (first === "closed") return { finished: true, dropped: 0 };
    const dropped = server.connections;
    options.log(`shutdown: dropping ${dropped} connection(s) still open after ${options.timeoutMs} ms`);
    server.closeAllConnections();
    // Dropped sockets close at once; the wait is bounded all the same.
    await Promise.race([closed, after(500)]);
    return { finished: false, dropped };
  } finally {
    for (const timer of timers) clearTimeout(timer);
  }
}
