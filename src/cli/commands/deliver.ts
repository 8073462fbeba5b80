import type { Command } from "commander";
import { deliverNow } from "../../services/sending/delivery-runtime.js";
import type { CommandContext } from "../context.js";
import { printJson } from "../output.js";
import { defineVerb } from "./shared.js";

/**
 * `outreach deliver [--until-empty]`: the delivery loop of `serve`, run once on a local
 * data directory (a cron job instead of a server). An operator command: it opens the data
 * directory itself, as `serve` does.
 */
export interface DeliverOptions {
  /** Keep delivering until nothing is due now. */
  untilEmpty?: boolean;
  json?: boolean;
}

export function registerDeliver(program: Command, ctx: CommandContext): void {
  defineVerb(
    program,
    {
      name: "deliver",
      description: "deliver the campaign messages that are due, through OUTREACH_SMTP_URL, from the local data directory",
      json: true,
      examples: ["OUTREACH_SMTP_URL=smtp://user:pass@relay.example:587 OUTREACH_PUBLIC_URL=https://outreach.example.com outreach deliver --until-empty", "outreach deliver --json"],
    },
    (command) => command.option("--until-empty", "keep delivering (waiting out the per-minute throttles) until nothing is due now"),
  ).action((options: DeliverOptions) => runDeliver(ctx, options));
}

export async function runDeliver(ctx: CommandContext, options: DeliverOptions): Promise<void> {
  const instance = ctx.openInstance();
  try {
    const log = (line: string) => ctx.io.stderr.write(line + "\n");
    const result = await deliverNow(instance.services, { untilEmpty: Boolean(options.untilEmpty), log, signal: ctx.io.signal });
    if (options.json) return printJson(ctx.io, result);
    const parts = [`${result.sent} sent`, `${result.failed} failed`, `${result.retried} to retry`, `${result.skipped} skipped`];
    if (result.unconfirmed) parts.push(`${result.unconfirmed} unconfirmed`);
    ctx.info(`delivered: ${parts.join(", ")}`);
    if (result.waiting) ctx.info(`${result.waiting} message(s) wait for a later time; the next is due at ${result.nextAt}`);
  } finally {
    instance.close();
  }
}
