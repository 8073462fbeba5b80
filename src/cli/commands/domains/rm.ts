import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { confirmed } from "../../confirm.js";
import { defineVerb } from "../shared.js";
import { activeTeamId, findDomain, listDomains } from "./domain-lookup.js";

/** `outreach domains rm DOMAIN`: a sending domain and its DKIM key, after asking on a terminal. */
export interface RmOptions {
  ref: string;
  yes?: boolean;
}

export function registerRm(domains: Command, ctx: CommandContext): void {
  defineVerb(
    domains,
    { name: "rm", description: "remove a sending domain and its DKIM key", examples: ["outreach domains rm example.com", "outreach domains rm dom_3kF9x2… --yes"] },
    (command) =>
      command
        .argument("<domain>", "domain name or id")
        .option("-y, --yes", "do not ask for confirmation"),
  ).action((ref: string, options: { yes?: boolean }) => runRm(ctx, { ref, yes: options.yes }));
}

export async function runRm(ctx: CommandContext, options: RmOptions): Promise<void> {
  const client = await ctx.client();
  const target = findDomain((await listDomains(client, await activeTeamId(client, ctx.io.signal), ctx.io.signal)).domains, options.ref);
  const go = await confirmed(ctx, {
    yes: options.yes,
    refusal: `pass --yes to remove ${target.domain} without a terminal to confirm on`,
    question: () => `Remove ${target.domain} and its DKIM key? Mail signed with it can no longer be sent.`,
    declined: "Nothing removed.",
  });
  if (!go) return;
  await client.call("sendingDomains.delete", { params: { id: target.id }, signal: ctx.io.signal });
  ctx.info(`Removed ${target.domain} (${target.id}).`);
}
