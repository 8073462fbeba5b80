import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb, type IdOptions } from "../shared.js";
import { countsLine, printCampaign } from "./campaign-output.js";
import { sequenceLines } from "./sequence-flags.js";

/** `outreach campaigns show ID`: one campaign, its execution counts, steps and funnel. */
export type ShowOptions = IdOptions;

export function registerShow(campaigns: Command, ctx: CommandContext): void {
  defineVerb(campaigns, { name: "show", description: "show one campaign", json: true, examples: ["outreach campaigns show cmp_3kF9x2aB7dQ1LmZp"] }, (command) =>
    command.argument("<id>", "campaign id"),
  ).action((id: string, options: { json?: boolean }) => runShow(ctx, { id, json: options.json }));
}

export async function runShow(ctx: CommandContext, { id, json }: ShowOptions): Promise<void> {
  const detail = await (await ctx.client()).call("campaigns.get", { params: { id } });
  if (json) return printJson(ctx.io, detail);
  printCampaign(ctx, detail.campaign);
  ctx.io.stdout.write(`executions: ${countsLine(detail.executionCounts)}\n`);
  for (const line of sequenceLines(detail.campaign, detail.executionCounts, detail.unsubscribed)) ctx.io.stdout.write(`${line}\n`);
}
