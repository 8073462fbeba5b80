import type { Command } from "commander";
import { ApiClient } from "../../../client/api-client.js";
import { RemoteTransport } from "../../../client/transports.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printExecutions } from "../../execution-rows.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";

/** `outreach campaigns trigger ID --contact C`: an active lifetime campaign queued for a contact, with a team API key. */
export interface TriggerOptions {
  id: string;
  contact: string;
  /** --api-key; else OUTREACH_API_KEY (the environment is the run's to read). */
  apiKey?: string;
  json?: boolean;
}

export function registerTrigger(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "trigger",
      description: "queue an active lifetime campaign for a contact (needs a team API key with scope campaigns:trigger)",
      json: true,
      examples: [
        "outreach campaigns trigger cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ --api-key otr_key_…",
        "OUTREACH_API_KEY=otr_key_… outreach campaigns trigger cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ --json",
      ],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .requiredOption("--contact <id>", "contact id")
        .option("--api-key <key>", "team API key (env OUTREACH_API_KEY); your personal token cannot trigger"),
  ).action((id: string, flags: Omit<TriggerOptions, "id">) => runTrigger(ctx, { id, ...flags }));
}

export async function runTrigger(ctx: CommandContext, { id, contact, apiKey, json }: TriggerOptions): Promise<void> {
  const key = apiKey ?? ctx.env.OUTREACH_API_KEY;
  if (!key) throw new UsageError("a team API key is needed: pass --api-key or set OUTREACH_API_KEY (create one with `outreach keys create`)");
  // Remotely, the key alone is enough (a CI job may have no personal token at all).
  const mode = ctx.mode();
  const client = mode.kind === "remote" ? new ApiClient(new RemoteTransport(mode.baseUrl), key) : (await ctx.client()).withToken(key);
  const result = await client.call("campaigns.trigger", { params: { id }, body: { contactId: contact } });
  if (json) return printJson(ctx.io, result);
  printExecutions(ctx, [result.execution]);
  ctx.info(result.created ? "queued" : "already queued for this contact: nothing changed");
}
