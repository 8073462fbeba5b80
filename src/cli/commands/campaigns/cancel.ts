import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb, type IdOptions } from "../shared.js";

/** `outreach campaigns cancel ID`: a launched one-time campaign stopped; what the relay has not been handed is cancelled. */
export type CancelOptions = IdOptions;

export function registerCancel(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "cancel",
      description: "stop a launched one-time campaign: what is not yet handed to the relay is cancelled",
      json: true,
      examples: ["outreach campaigns cancel cmp_3kF9x2aB7dQ1LmZp"],
    },
    (command) => command.argument("<id>", "campaign id"),
  ).action((id: string, options: { json?: boolean }) => runCancel(ctx, { id, json: options.json }));
}

export async function runCancel(ctx: CommandContext, { id, json }: CancelOptions): Promise<void> {
  const result = await (await ctx.client()).call("campaigns.cancel", { params: { id } });
  if (json) return printJson(ctx.io, result);
  ctx.info(`${ctx.color.green("✓")} campaign ${result.campaign.id} is cancelled: ${result.cancelled} execution(s) will not be sent`);
}
