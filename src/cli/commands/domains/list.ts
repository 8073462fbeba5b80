import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson, printRows, timeCell } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";
import { activeTeamId, listDomains } from "./domain-lookup.js";

/** `outreach domains list`: the workspace's sending domains, * marking the default. */
export type ListOptions = JsonOption;

export function registerList(domains: Command, ctx: CommandContext): void {
  defineVerb(domains, { name: "list", description: "list the workspace's sending domains", json: true, examples: ["outreach domains list", "outreach domains list --json"] }).action((options: ListOptions) => runList(ctx, options));
}

export async function runList(ctx: CommandContext, options: ListOptions): Promise<void> {
  const client = await ctx.client();
  const result = await listDomains(client, await activeTeamId(client, ctx.io.signal), ctx.io.signal);
  if (options.json) return printJson(ctx.io, result);
  if (result.holdReason) ctx.warn(`sending from custom domains is held: ${result.holdReason}`);
  printRows(ctx.io, ctx.env, result.domains, [
    { header: "", value: (d) => (d.id === result.defaultDomainId ? "*" : "") },
    { header: "ID", value: (d) => d.id },
    { header: "DOMAIN", value: (d) => d.domain },
    { header: "STATUS", value: (d) => d.status },
    { header: "DKIM", value: (d) => (d.dkimVerified ? "yes" : "no") },
    { header: "ED25519", value: (d) => (d.dkimEd25519 ? (d.dkimEd25519Verified ? "yes" : "no") : "off") },
    { header: "RETURN PATH", value: (d) => (d.returnPathVerified ? "yes" : "no") },
    { header: "DMARC", value: (d) => d.dmarcStatus ?? "" },
    { header: "SENDER", value: (d) => `${d.senderName} <${d.senderEmail}>` },
    { header: "LAST CHECKED", value: (d) => timeCell(ctx.io, ctx.clock.now(), d.lastCheckedAt, "never") },
  ]);
}
