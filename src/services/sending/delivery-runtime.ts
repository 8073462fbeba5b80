import { startBounceListener } from "../../providers/smtp/bounce-listener.js";
import { SmtpRelay, type Relay } from "../../providers/smtp/relay.js";
import type { PassResult } from "./delivery.js";
import { ConfigError, MISSING_SMTP_URL } from "../config.js";
import { createBounces, createDelivery, type Services } from "../index.js";

/**
 * The long-running parts of sending, started by the operator commands: the delivery loop
 * over the relay in OUTREACH_SMTP_URL and the bounce listener (`serve --smtp-port`), and
 * the one-shot run of `outreach deliver`. Built here so the CLI needs neither the SMTP
 * providers nor the delivery's wiring.
 */

/**
 * The relay of OUTREACH_SMTP_URL, or a ConfigError naming the setting (exit 2, as when
 * OUTREACH_PUBLIC_URL is missing: both are settings the operator has not made yet).
 */
export function relayFromConfig(services: Services): Relay {
  const smtp = services.deps.config.smtp;
  if (!smtp) throw new ConfigError(MISSING_SMTP_URL);
  return new SmtpRelay({ ...smtp, connections: smtp.connections });
}

export interface SendingWorkers {
  /** Whether the delivery loop runs (OUTREACH_SMTP_URL set). */
  delivering: boolean;
  /** The bounce listener's port, when asked for. */
  bouncePort: number | null;
  /** Stop both: the loop finishes the message in hand first. */
  stop(): Promise<void>;
}

/** `outreach serve`: the delivery loop when a relay is configured, the bounce listener when a port is given. */
export async function startSendingWorkers(services: Services, options: { log: (line: string) => void; bounce?: { host: string; port: number } }): Promise<SendingWorkers> {
  const { log } = options;
  let bounceClose: (() => Promise<void>) | undefined;
  let bouncePort: number | null = null;
  if (options.bounce) {
    const bounces = createBounces(services, log);
    const listener = await startBounceListener({
      host: options.bounce.host,
      port: options.bounce.port,
      accepts: (address) => bounces.accepts(address),
      onReport: (report) => void bounces.handle(report),
      log,
    });
    bounceClose = listener.close;
    bouncePort = listener.port;
  }
  if (!services.deps.config.smtp) {
    return { delivering: false, bouncePort, stop: async () => void (await bounceClose?.()) };
  }
  const relay = relayFromConfig(services);
  const delivery = createDelivery(services, { relay, log });
  const abort = new AbortController();
  const loop = delivery.run(abort.signal).catch((err: unknown) => log(`delivery stopped: ${err instanceof Error ? err.message : String(err)}`));
  return {
    delivering: true,
    bouncePort,
    async stop() {
      abort.abort();
      await loop;
      await relay.close();
      await bounceClose?.();
    },
  };
}

export type DeliverResult = PassResult & { waiting: number; nextAt: string | null };

/**
 * `outreach deliver`: one pass (or, `untilEmpty`, passes until nothing is due now, waiting
 * out the per-minute throttles) on a local data directory, for a cron-driven setup.
 */
export async function deliverNow(services: Services, options: { untilEmpty: boolean; log: (line: string) => void; signal?: AbortSignal; relay?: Relay }): Promise<DeliverResult> {
  const relay = options.relay ?? relayFromConfig(services);
  const delivery = createDelivery(services, { relay, log: options.log });
  try {
    if (options.untilEmpty) return await delivery.runUntilEmpty(options.signal);
    return await delivery.runOnce();
  } finally {
    await relay.close();
  }
}
