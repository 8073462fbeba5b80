import type { Command } from "commander";
import { ExecutionStatus } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { printExecutions } from "../../execution-rows.js";
import { printJson } from "../../output.js";
import { defineVerb, pageFlags } from "../shared.js";
import { morePagesLine } from "./campaign-output.js";

/** `outreach campaigns executions ID`: one per contact and step, with its delivery status. */
export interface ExecutionsFlags {
  status?: string;
  page?: string;
  limit?: string;
  json?: boolean;
}

export interface ExecutionsOptions {
  id: string;
  status?: string;
  page: number | undefined;
  limit: number | undefined;
  json?: boolean;
}

export function registerExecutions(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "executions",
      description: "list a campaign's executions: one per contact and step, with its delivery status",
      json: true,
      examples: ["outreach campaigns executions cmp_3kF9x2aB7dQ1LmZp --status failed,bounced", "outreach campaigns executions cmp_3kF9x2aB7dQ1LmZp --json"],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .option("--status <list>", `comma list of ${ExecutionStatus.options.join(", ")}`)
        .option("--page <n>", "page number (default 1)")
        .option("--limit <n>", "executions per page, 1..100 (default 20)"),
  ).action((id: string, flags: ExecutionsFlags) => runExecutions(ctx, parseExecutionsOptions(id, flags)));
}

export function parseExecutionsOptions(id: string, flags: ExecutionsFlags): ExecutionsOptions {
  return { id, status: flags.status, ...pageFlags(flags), json: flags.json };
}

export async function runExecutions(ctx: CommandContext, { id, json, ...query }: ExecutionsOptions): Promise<void> {
  const result = await (await ctx.client()).call("campaigns.executions", { params: { id }, query });
  if (json) return printJson(ctx.io, result);
  printExecutions(ctx, result.executions);
  morePagesLine(ctx, result, "executions");
}
