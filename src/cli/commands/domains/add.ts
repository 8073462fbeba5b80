import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { requireFlags } from "../../flags.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { activeTeamId, findDomain, listDomains, printRecords } from "./domain-lookup.js";

/** `outreach domains add DOMAIN`: a sending domain, and the DNS records to publish for it. */
export type AddFlags = {
  senderEmail?: string;
  senderName?: string;
  ed25519?: boolean;
  json?: boolean;
};

export interface AddOptions {
  domain: string;
  senderEmail: string;
  senderName: string;
  /** Also sign with an Ed25519 key (RFC 8463) beside the RSA one. */
  ed25519: boolean;
  json?: boolean;
}

export function registerAdd(domains: Command, ctx: CommandContext): void {
  defineVerb(
    domains,
    {
      name: "add",
      description: "add a sending domain and print the DNS records to publish",
      json: true,
      examples: [
        'outreach domains add example.com --sender-email hello@example.com --sender-name "Acme Sales"',
        "outreach domains add example.com --sender-email hello@example.com --sender-name Acme --json",
        "outreach domains add example.com --sender-email hello@example.com --sender-name Acme --ed25519",
      ],
    },
    (command) =>
      command
        .argument("<domain>", "the domain to send from, e.g. example.com")
        .option("--sender-email <email>", "the From address, at the domain or a subdomain of it")
        .option("--sender-name <name>", "the From name")
        .option("--ed25519", "also sign with an Ed25519 key (RFC 8463) beside the RSA one: one more DNS record to publish"),
  ).action((domain: string, flags: AddFlags) => runAdd(ctx, parseAddOptions(domain, flags)));
}

export function parseAddOptions(domain: string, flags: AddFlags): AddOptions {
  requireFlags(flags, { senderEmail: "--sender-email", senderName: "--sender-name" });
  return { domain, senderEmail: flags.senderEmail!, senderName: flags.senderName!, ed25519: flags.ed25519 === true, json: flags.json };
}

export async function runAdd(ctx: CommandContext, { domain, senderEmail, senderName, ed25519, json }: AddOptions): Promise<void> {
  const client = await ctx.client();
  const teamId = await activeTeamId(client, ctx.io.signal);
  await client.call("sendingDomains.add", { query: { teamId }, body: { domain, senderEmail, senderName, ...(ed25519 ? { dkimEd25519: true } : {}) }, signal: ctx.io.signal });
  const { domains: all } = await listDomains(client, teamId, ctx.io.signal);
  const added = findDomain(all, domain);
  if (json) return printJson(ctx.io, added);
  ctx.info(`Added ${added.domain} (${added.id}). Publish these records at your DNS provider, then run:`);
  ctx.info(`  outreach domains verify ${added.domain} --wait`);
  printRecords(ctx, added.dnsRecords, false);
}
