import type { Command } from "commander";
import { ApiError, type ApiClient } from "../../../client/api-client.js";
import { DNS_RECORD_PURPOSE_LABELS, type SendingDomain } from "../../../core/schemas/sending-domain.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT } from "../../exit-codes.js";
import { durationFlag } from "../../flags.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { activeTeamId, findDomain, listDomains, printRecords } from "./domain-lookup.js";

/** `outreach domains verify DOMAIN`: its records looked up in DNS now, or with --wait until verified. */
export interface VerifyFlags {
  wait?: boolean;
  timeout: string;
  interval: string;
  json?: boolean;
}

export interface VerifyOptions {
  ref: string;
  wait: boolean;
  timeoutMs: number;
  /** --timeout as typed, for the message when it passes. */
  timeoutText: string;
  /** The first pause between checks; it doubles up to 5 minutes. */
  intervalMs: number;
  json?: boolean;
}

export function registerVerify(domains: Command, ctx: CommandContext): void {
  defineVerb(
    domains,
    {
      name: "verify",
      description: "look the domain's records up in DNS now; with --wait, re-check with backoff until verified",
      json: true,
      examples: ["outreach domains verify example.com", "outreach domains verify example.com --wait --timeout 30m", "outreach domains verify dom_3kF9x2… --json"],
    },
    (command) =>
      command
        .argument("<domain>", "domain name or id")
        .option("--wait", "keep checking until the domain is verified or --timeout passes")
        .option("--timeout <duration>", "how long --wait keeps trying (e.g. 30s, 10m, 1h)", "10m")
        .option("--interval <duration>", "first pause between checks with --wait; doubles up to 5 minutes", "10s"),
  ).action((ref: string, flags: VerifyFlags) => runVerify(ctx, parseVerifyOptions(ref, flags)));
}

export function parseVerifyOptions(ref: string, flags: VerifyFlags): VerifyOptions {
  const timeoutMs = durationFlag("--timeout", flags.timeout);
  const intervalMs = Math.max(1, durationFlag("--interval", flags.interval));
  return { ref, wait: Boolean(flags.wait), timeoutMs, timeoutText: flags.timeout, intervalMs, json: flags.json };
}

export async function runVerify(ctx: CommandContext, options: VerifyOptions): Promise<void> {
  const client = await ctx.client();
  const teamId = await activeTeamId(client, ctx.io.signal);
  const target = findDomain((await listDomains(client, teamId, ctx.io.signal)).domains, options.ref);
  const current = await checkUntilDone(ctx, client, teamId, target, options);
  if (options.json) printJson(ctx.io, current);
  else printRecords(ctx, current.dnsRecords, true);
  if (current.status === "verified") ctx.info(ctx.color.green(`${current.domain} is verified.`));
  else if (options.wait) {
    throw new CliError(`${current.domain} is still ${current.status} after ${options.timeoutText}${current.lastError ? `: ${current.lastError}` : ""}`, EXIT.error);
  } else ctx.info(`${current.domain} is ${current.status}${current.lastError ? `: ${current.lastError}` : ""}`);
}

/** One check, or with --wait checks with backoff until verified or the deadline; each record's status said when it changes. */
async function checkUntilDone(ctx: CommandContext, client: ApiClient, teamId: string, target: SendingDomain, options: VerifyOptions): Promise<SendingDomain> {
  // The injected clock (tests move it instead of waiting).
  const clock = ctx.clock;
  const deadline = clock.now().getTime() + options.timeoutMs;
  const seen = new Map<string, string>();
  let pauseMs = options.intervalMs;
  let current = target;
  for (let attempt = 1; ; attempt++) {
    try {
      // With --wait this loop waits out a 429 itself, within --timeout.
      await client.call("sendingDomains.verify", { params: { id: target.id }, signal: ctx.io.signal, ...(options.wait ? { waitOnRateLimit: false as const } : {}) });
    } catch (err) {
      // Someone (or an earlier run) checked moments ago: wait as the server asks.
      if (!(options.wait && err instanceof ApiError && err.status === 429)) throw err;
      const retryMs = Number(err.headers.get("retry-after") ?? "10") * 1000;
      ctx.info(`checked moments ago; next check in ${Math.round(retryMs / 1000)} s`);
      if (clock.now().getTime() + retryMs > deadline) break;
      await clock.sleep(retryMs, ctx.io.signal);
      continue;
    }
    current = findDomain((await listDomains(client, teamId, ctx.io.signal)).domains, target.id);
    reportChangedRecords(ctx, current, seen);
    if (!options.wait || current.status === "verified") break;
    const remaining = deadline - clock.now().getTime();
    if (remaining <= 0) break;
    const pause = Math.min(pauseMs, remaining);
    ctx.info(`${current.domain} is ${current.status}; checking again in ${pause >= 1000 ? `${Math.round(pause / 1000)} s` : `${pause} ms`} (attempt ${attempt + 1})`);
    await clock.sleep(pause, ctx.io.signal);
    pauseMs = Math.min(pauseMs * 2, 300_000);
  }
  return current;
}

/** A line per record whose status is new since the last check (`seen` remembers them). */
function reportChangedRecords(ctx: CommandContext, domain: SendingDomain, seen: Map<string, string>): void {
  for (const record of domain.dnsRecords) {
    const key = `${record.purpose} ${record.host}`;
    if (seen.get(key) === record.status) continue;
    seen.set(key, record.status);
    const colour = record.status === "verified" ? ctx.color.green : record.status === "failed" ? ctx.color.red : ctx.color.yellow;
    ctx.info(`${DNS_RECORD_PURPOSE_LABELS[record.purpose].padEnd(11)} ${record.type.padEnd(5)} ${record.host}: ${colour(record.status)}${record.error ? ` (${record.error})` : ""}`);
  }
}
