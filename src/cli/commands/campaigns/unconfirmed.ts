import type { Command } from "commander";
import type { ApiClient } from "../../../client/api-client.js";
import type { CampaignExecution } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printExecutions } from "../../execution-rows.js";
import { mutuallyExclusive } from "../../flags.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";

/**
 * `outreach campaigns unconfirmed ID [EXECUTIONS...]`: the executions recorded as sent but
 * unconfirmed (a crash after handing them to the relay), listed, or resolved by --resend or --confirm.
 */
export interface UnconfirmedFlags {
  resend?: boolean;
  confirm?: boolean;
  json?: boolean;
}

export interface UnconfirmedOptions {
  id: string;
  /** undefined: list them. */
  action?: "resend" | "confirm";
  /** Empty: every unconfirmed one. */
  executionIds: string[];
  json?: boolean;
}

export function registerUnconfirmed(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "unconfirmed",
      description: "list the executions recorded as sent but unconfirmed (a crash after handing them to the relay), or resolve them",
      json: true,
      examples: [
        "outreach campaigns unconfirmed cmp_3kF9x2aB7dQ1LmZp",
        "outreach campaigns unconfirmed cmp_3kF9x2aB7dQ1LmZp --confirm",
        "outreach campaigns unconfirmed cmp_3kF9x2aB7dQ1LmZp --resend exe_7Yh2…",
      ],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .argument("[executions...]", "execution ids to resolve (default: every unconfirmed one)")
        .option("--resend", "send them once more (the recipient may get a message twice)")
        .option("--confirm", "they arrived: clear the flag, their sequence goes on"),
  ).action((id: string, ids: string[], flags: UnconfirmedFlags) => runUnconfirmed(ctx, parseUnconfirmedOptions(id, ids, flags)));
}

export function parseUnconfirmedOptions(id: string, executionIds: string[], flags: UnconfirmedFlags): UnconfirmedOptions {
  mutuallyExclusive({ "--resend": flags.resend, "--confirm": flags.confirm });
  const action = flags.resend ? "resend" : flags.confirm ? "confirm" : undefined;
  if (!action && executionIds.length) throw new UsageError("execution ids are resolved with --resend or --confirm");
  return { id, action, executionIds, json: flags.json };
}

export async function runUnconfirmed(ctx: CommandContext, { id, action, executionIds, json }: UnconfirmedOptions): Promise<void> {
  const client = await ctx.client();
  let targets = executionIds;
  if (!action || targets.length === 0) {
    const list = await client.call("campaigns.executions", { params: { id }, query: { unconfirmed: "true", page: 1, limit: 100 } });
    if (!action) {
      if (json) return printJson(ctx.io, list);
      printExecutions(ctx, list.executions);
      if (list.total > list.executions.length) ctx.info(`${list.total} unconfirmed in all; the first ${list.executions.length} are shown`);
      return;
    }
    targets = list.executions.map((e) => e.id);
  }
  const resolved = await resolveAll(client, id, targets, action);
  if (json) return printJson(ctx.io, { executions: resolved });
  ctx.info(`${ctx.color.green("✓")} ${resolved.length} execution(s) ${action === "resend" ? "queued to be sent again" : "confirmed"}`);
}

/** One request per execution, in order. */
async function resolveAll(client: ApiClient, id: string, executionIds: string[], action: "resend" | "confirm"): Promise<CampaignExecution[]> {
  const resolved: CampaignExecution[] = [];
  for (const executionId of executionIds) {
    const { execution } = await client.call("campaigns.resolveExecution", { params: { id, executionId }, body: { action } });
    resolved.push(execution);
  }
  return resolved;
}
