import { Option, type Command } from "commander";
import { LifetimeStatus } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";

/** `outreach campaigns activate|pause|resume|archive ID`: one verb per lifecycle change of a lifetime campaign. */
export const LIFECYCLE_VERBS = [
  { verb: "activate", status: "active", description: "start a draft lifetime campaign (draft → active)" },
  { verb: "pause", status: "paused", description: "pause an active lifetime campaign; cancels its pending and queued executions" },
  { verb: "resume", status: "active", description: "resume a paused lifetime campaign (paused → active)" },
  { verb: "archive", status: "archived", description: "archive a lifetime campaign for good; cancels its pending and queued executions" },
] as const;

export interface LifecycleOptions {
  id: string;
  /** The status the verb moves the campaign to. */
  status: (typeof LIFECYCLE_VERBS)[number]["status"];
  /** --if-status: only if the campaign still has this status (else exit 5). */
  ifStatus?: LifetimeStatus;
  json?: boolean;
}

/** The four verbs, each with the status it moves to. */
export function registerLifecycleVerbs(campaigns: Command, ctx: CommandContext): void {
  for (const { verb, status, description } of LIFECYCLE_VERBS) {
    defineVerb(
      campaigns,
      { name: verb, description, json: true, examples: [`outreach campaigns ${verb} cmp_3kF9x2aB7dQ1LmZp`, `outreach campaigns ${verb} cmp_3kF9x2aB7dQ1LmZp --json`] },
      (command) =>
        command
          .argument("<id>", "campaign id")
          .addOption(new Option("--if-status <status>", "only if the campaign still has this status (else exit 5): guards against a concurrent change").choices(LifetimeStatus.options)),
    ).action((id: string, flags: { ifStatus?: LifetimeStatus; json?: boolean }) => runLifecycle(ctx, { id, status, ...flags }));
  }
}

export async function runLifecycle(ctx: CommandContext, { id, status, ifStatus, json }: LifecycleOptions): Promise<void> {
  const { campaign } = await (await ctx.client()).call("campaigns.changeLifecycle", {
    params: { id },
    body: { status, ...(ifStatus ? { expectedStatus: ifStatus } : {}) },
  });
  if (json) return printJson(ctx.io, { campaign });
  ctx.info(`${ctx.color.green("✓")} campaign ${campaign.id} (${campaign.name}) is ${campaign.status}`);
}
