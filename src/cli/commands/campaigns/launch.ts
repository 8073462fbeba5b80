import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";

/** `outreach campaigns launch ID`: a one-time campaign sent to the contacts with any of the tags. */
export interface LaunchFlags {
  tags?: string;
  scheduledAt?: string;
  json?: boolean;
}

export interface LaunchOptions {
  id: string;
  /** undefined: every active contact. */
  tags?: string[];
  scheduledAt?: string;
  json?: boolean;
}

export function registerLaunch(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "launch",
      description: "send a one-time campaign: one message per active contact with any of the tags (all contacts without --tags)",
      json: true,
      examples: ["outreach campaigns launch cmp_3kF9x2aB7dQ1LmZp", "outreach campaigns launch cmp_3kF9x2aB7dQ1LmZp --tags dentist,zurich --scheduled-at 2026-12-01T09:00:00Z"],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .option("--tags <list>", "comma list of tags; a contact with any of them is sent to")
        .option("--scheduled-at <datetime>", "send at this time instead of now (ISO 8601)"),
  ).action((id: string, flags: LaunchFlags) => runLaunch(ctx, parseLaunchOptions(id, flags)));
}

export function parseLaunchOptions(id: string, flags: LaunchFlags): LaunchOptions {
  const tags = flags.tags?.split(",").map((t) => t.trim()).filter(Boolean);
  if (flags.tags !== undefined && !tags?.length) throw new UsageError("--tags: give at least one tag (a comma list)");
  return { id, tags, scheduledAt: flags.scheduledAt, json: flags.json };
}

export async function runLaunch(ctx: CommandContext, { id, tags, scheduledAt, json }: LaunchOptions): Promise<void> {
  const result = await (await ctx.client()).call("campaigns.launch", {
    params: { id },
    body: { ...(tags ? { tags } : {}), ...(scheduledAt ? { scheduledAt } : {}) },
  });
  if (json) return printJson(ctx.io, result);
  const when = result.campaign.status === "scheduled" && result.campaign.scheduledAt ? ` for ${result.campaign.scheduledAt}` : "";
  ctx.info(`${ctx.color.green("✓")} campaign ${result.campaign.id} launched: ${result.queued} message(s) queued${when}; ${ctx.queuedMessagesFate()}`);
}
