import { Option, type Command } from "commander";
import { CampaignStatus, CampaignType } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { printJson, printRows, timeCell } from "../../output.js";
import { defineVerb, pageFlags } from "../shared.js";
import { morePagesLine } from "./campaign-output.js";

/** `outreach campaigns list`: the workspace's campaigns, newest first. */
export interface ListFlags {
  status?: string;
  type?: CampaignType;
  page?: string;
  limit?: string;
  json?: boolean;
}

export interface ListOptions {
  status?: string;
  type?: CampaignType;
  page: number | undefined;
  limit: number | undefined;
  json?: boolean;
}

export function registerList(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "list",
      description: "list the workspace's campaigns, newest first",
      json: true,
      examples: ["outreach campaigns list", "outreach campaigns list --type lifetime --status active,paused", "outreach campaigns list --json | jq '.campaigns[].id'"],
    },
    (command) =>
      command
        .option("--status <list>", `comma list of statuses (${CampaignStatus.options.join(", ")})`)
        .addOption(new Option("--type <type>", "only this type").choices(CampaignType.options))
        .option("--page <n>", "page number (default 1)")
        .option("--limit <n>", "campaigns per page, 1..100 (default 20)"),
  ).action((flags: ListFlags) => runList(ctx, parseListOptions(flags)));
}

export function parseListOptions(flags: ListFlags): ListOptions {
  return { status: flags.status, type: flags.type, ...pageFlags(flags), json: flags.json };
}

export async function runList(ctx: CommandContext, { json, ...query }: ListOptions): Promise<void> {
  const result = await (await ctx.client()).call("campaigns.list", { query });
  if (json) return printJson(ctx.io, result);
  printRows(ctx.io, ctx.env, result.campaigns, [
    { header: "ID", value: (c) => c.id },
    { header: "NAME", value: (c) => c.name },
    { header: "TYPE", value: (c) => c.type },
    { header: "STATUS", value: (c) => c.status },
    { header: "SUBJECT", value: (c) => c.subject },
    { header: "UPDATED", value: (c) => timeCell(ctx.io, ctx.clock.now(), c.updatedAt) },
  ]);
  morePagesLine(ctx, result, "campaigns");
}
