import type { VerificationService } from "./verification.js";

/**
 * `serve`'s loop over greylisted addresses: once a minute, the retries that are due (the
 * schedule is a table, so a restart picks up where the last process left). Off when the
 * SMTP probe is off (nothing is ever greylisted then).
 */
export function startVerificationRetries(verification: VerificationService, log: (line: string) => void, everyMs = 60_000): { stop(): Promise<void> } {
  if (!verification.probe) return { stop: async () => {} };
  const controller = new AbortController();
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = verification
      .retryDue(controller.signal)
      .then((n) => void (n > 0 && log(`address verification: ${n} greylisted address(es) asked again`)))
      .catch((err: unknown) => void (!controller.signal.aborted && log(`address verification retries failed: ${err instanceof Error ? err.message : String(err)}`)))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      controller.abort();
      await running;
    },
  };
}
