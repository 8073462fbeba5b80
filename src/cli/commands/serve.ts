import type { Command } from "commander";
import { createApp } from "../../server/app.js";
import { drain } from "../../server/drain.js";
import { startServer } from "../../server/listen.js";
import { startSendingWorkers } from "../../services/sending/delivery-runtime.js";
import { startVerificationRetries } from "../../services/contacts/verification-retries.js";
import { startMailboxWatcher } from "../../services/replies/reply-runtime.js";
import type { CommandContext } from "../context.js";
import { intFlag } from "../flags.js";
import { defineVerb } from "./shared.js";

/** `outreach serve`: what commander hands over. */
export interface ServeFlags {
  host: string;
  port: string;
  shutdownTimeout?: string;
  smtpPort?: string;
}

export interface ServeOptions {
  host: string;
  port: number;
  /** undefined: OUTREACH_SHUTDOWN_TIMEOUT_MS or its default. */
  shutdownTimeoutMs?: number;
  /** The bounce listener's port; undefined: none. */
  smtpPort?: number;
}

export function registerServe(program: Command, ctx: CommandContext): void {
  defineVerb(
    program,
    {
      name: "serve",
      description: "serve the full API over HTTP from the data directory (127.0.0.1 by default)",
      examples: [
        "outreach serve",
        "outreach serve --data-dir /srv/outreach --port 8080",
        "OUTREACH_RATE_LIMIT=600 outreach serve --host 0.0.0.0 --shutdown-timeout 30000",
        "OUTREACH_SMTP_URL=smtp://user:pass@relay.example:587 OUTREACH_PUBLIC_URL=https://outreach.example.com outreach serve --smtp-port 2525",
      ],
    },
    (command) =>
      command
        .option("--host <host>", "address to bind (use 0.0.0.0 only behind a TLS proxy)", "127.0.0.1")
        .option("--port <port>", "port to listen on", "8787")
        .option("--shutdown-timeout <ms>", "after SIGINT/SIGTERM, how long in-flight requests may take (env OUTREACH_SHUTDOWN_TIMEOUT_MS, default 15000)")
        .option("--smtp-port <port>", "also accept delivery status notifications (bounces) for the VERP return paths over SMTP on this port (on --host)"),
  ).action((flags: ServeFlags) => runServe(ctx, parseServeOptions(flags)));
}

export function parseServeOptions(flags: ServeFlags): ServeOptions {
  const port = intFlag("--port", flags.port, { min: 0, max: 65535 })!;
  const smtpPort = intFlag("--smtp-port", flags.smtpPort, { min: 0, max: 65535 });
  return { host: flags.host, port, smtpPort, shutdownTimeoutMs: intFlag("--shutdown-timeout", flags.shutdownTimeout, { min: 100, max: 600_000 }) };
}

export async function runServe(ctx: CommandContext, options: ServeOptions): Promise<void> {
  const dataDir = ctx.dataDir();
  const instance = ctx.openInstance(dataDir);
  const timeoutMs = options.shutdownTimeoutMs ?? instance.services.deps.config.shutdownTimeoutMs;
  const log = (line: string) => ctx.io.stderr.write(line + "\n");
  // Before listening: a fresh install builds the search's vocabulary here, not in a request.
  instance.services.placeProvider.prepare?.();
  const app = createApp(instance.services, { log });
  const server = await startServer(app, { host: options.host, port: options.port, log });
  const checkpoints = instance.startBackgroundCheckpoints(log);
  const sending = await startSendingWorkers(instance.services, { log, bounce: options.smtpPort === undefined ? undefined : { host: options.host, port: options.smtpPort } });
  if (sending.bouncePort !== null) ctx.info(`bounce listener on smtp://${options.host}:${sending.bouncePort}`);
  if (!sending.delivering) ctx.info("delivery is off: OUTREACH_SMTP_URL is not set");
  const verificationRetries = startVerificationRetries(instance.services.verification, log);
  const mailbox = startMailboxWatcher(instance.services, { log });
  if (!mailbox) ctx.info("reply detection is off: OUTREACH_IMAP_URL is not set");
  if (instance.services.identity.users.count() === 0) {
    ctx.warn(`${dataDir} has no users yet: run \`outreach init --data-dir ${dataDir}\` to create one.`);
  }
  ctx.info(`outreach API serving ${dataDir}`);
  ctx.io.stdout.write(`${server.url}\n`);

  await new Promise<void>((resolve) => {
    let stopped = false;
    const stop = (signal: string) => {
      if (stopped) return;
      stopped = true;
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
      ctx.info(`${signal}: finishing in-flight requests (at most ${timeoutMs} ms)…`);
      resolve();
    };
    const onSigint = () => stop("SIGINT");
    const onSigterm = () => stop("SIGTERM");
    process.once("SIGINT", onSigint);
    process.once("SIGTERM", onSigterm);
    ctx.io.signal?.addEventListener("abort", () => stop("interrupt"), { once: true });
  });
  // The delivery loop finishes the message in hand (its answer is recorded) while requests drain.
  // The mailbox watcher records the batch in hand (its cursor moves with it) and logs out.
  await Promise.all([drain(app, server, { timeoutMs, log }), sending.stop(), verificationRetries.stop(), mailbox?.stop()]);
  // Last: nothing that can still answer a client runs on a closed database.
  await checkpoints.stop();
  instance.close();
  ctx.info("stopped");
}
