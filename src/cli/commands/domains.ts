import { confirm } from "@inquirer/prompts";
import type { Command } from "commander";
import { ApiError, type ApiClient } from "../../client/api-client.js";
import { normaliseDomain } from "../../core/domain-name.js";
import type { DnsRecord, SendingDomain } from "../../core/schemas/sending-domain.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, UsageError } from "../exit-codes.js";
import { printJson, printRows, timeCell } from "../output.js";
import { durationFlag, requireFlags } from "../flags.js";
import { promptContext } from "../io.js";
import { example, withJson } from "./shared.js";

const PURPOSE: Record<DnsRecord["purpose"], string> = {
  ownership: "ownership",
  dkim: "DKIM",
  dkim_ed25519: "DKIM (Ed25519)",
  return_path: "return path",
  spf: "SPF",
  dmarc: "DMARC",
};

function printRecords(ctx: CommandContext, records: readonly DnsRecord[], withResult: boolean): void {
  printRows(ctx.io, ctx.env, records, [
    { header: "PURPOSE", value: (r) => PURPOSE[r.purpose] },
    { header: "TYPE", value: (r) => r.type },
    { header: "HOST", value: (r) => r.host },
    { header: "VALUE", value: (r) => r.value },
    { header: "REQUIRED", value: (r) => (r.required ? "yes" : "advised") },
    { header: "STATUS", value: (r) => r.status },
    ...(withResult ? [{ header: "ERROR", value: (r: DnsRecord) => r.error ?? "" }] : []),
  ]);
}

/** The domain named by id or by name (in any spelling the server would normalise the same way). */
function findDomain(domains: readonly SendingDomain[], ref: string): SendingDomain {
  const normalised = normaliseDomain(ref);
  const found = domains.find((d) => d.id === ref || (normalised.ok && d.domain === normalised.domain));
  if (!found) throw new CliError(`no sending domain ${JSON.stringify(ref)} in the active workspace (see \`outreach domains list\`)`, EXIT.notFound);
  return found;
}

/** The active workspace's id, which endpoints 5 and 6 take as `teamId`. */
async function activeTeamId(client: ApiClient, signal?: AbortSignal): Promise<string> {
  return (await client.call("teams.list", { signal })).activeTeam.id;
}

async function listDomains(client: ApiClient, teamId: string, signal?: AbortSignal) {
  return client.call("sendingDomains.list", { query: { teamId }, signal });
}

export function registerDomains(program: Command, ctx: CommandContext): void {
  const domains = program.command("domains").description("sending domains: add, list, verify DNS, remove");
  const api = () => ctx.client();

  const add = withJson(
    domains
      .command("add")
      .description("add a sending domain and print the DNS records to publish")
      .argument("<domain>", "the domain to send from, e.g. example.com")
      .option("--sender-email <email>", "the From address, at the domain or a subdomain of it")
      .option("--sender-name <name>", "the From name")
      .option("--ed25519", "also sign with an Ed25519 key (RFC 8463) beside the RSA one: one more DNS record to publish"),
  ).action(async (domain: string, options: { senderEmail?: string; senderName?: string; ed25519?: boolean; json?: boolean }) => {
    requireFlags(options, { senderEmail: "--sender-email", senderName: "--sender-name" });
    const client = await api();
    const teamId = await activeTeamId(client, ctx.io.signal);
    await client.call("sendingDomains.add", {
      query: { teamId },
      body: { domain, senderEmail: options.senderEmail!, senderName: options.senderName!, ...(options.ed25519 ? { dkimEd25519: true } : {}) },
      signal: ctx.io.signal,
    });
    const { domains: all } = await listDomains(client, teamId, ctx.io.signal);
    const added = findDomain(all, domain);
    if (options.json) return printJson(ctx.io, added);
    ctx.info(`Added ${added.domain} (${added.id}). Publish these records at your DNS provider, then run:`);
    ctx.info(`  outreach domains verify ${added.domain} --wait`);
    printRecords(ctx, added.dnsRecords, false);
  });
  example(
    add,
    'outreach domains add example.com --sender-email hello@example.com --sender-name "Acme Sales"',
    "outreach domains add example.com --sender-email hello@example.com --sender-name Acme --json",
    "outreach domains add example.com --sender-email hello@example.com --sender-name Acme --ed25519",
  );

  const list = withJson(domains.command("list").description("list the workspace's sending domains")).action(async (options: { json?: boolean }) => {
    const client = await api();
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
  });
  example(list, "outreach domains list", "outreach domains list --json");

  const verify = withJson(
    domains
      .command("verify")
      .description("look the domain's records up in DNS now; with --wait, re-check with backoff until verified")
      .argument("<domain>", "domain name or id")
      .option("--wait", "keep checking until the domain is verified or --timeout passes")
      .option("--timeout <duration>", "how long --wait keeps trying (e.g. 30s, 10m, 1h)", "10m")
      .option("--interval <duration>", "first pause between checks with --wait; doubles up to 5 minutes", "10s"),
  ).action(async (ref: string, options: { wait?: boolean; timeout: string; interval: string; json?: boolean }) => {
    const timeoutMs = durationFlag("--timeout", options.timeout);
    let pauseMs = Math.max(1, durationFlag("--interval", options.interval));
    const client = await api();
    const teamId = await activeTeamId(client, ctx.io.signal);
    const target = findDomain((await listDomains(client, teamId, ctx.io.signal)).domains, ref);
    // The injected clock (tests move it instead of waiting).
    const clock = ctx.clock;
    const deadline = clock.now().getTime() + timeoutMs;
    const seen = new Map<string, string>();
    let current = target;
    for (let attempt = 1; ; attempt++) {
      try {
        // With --wait this loop waits out a 429 itself, within --timeout.
        await client.call("sendingDomains.verify", { params: { id: target.id }, signal: ctx.io.signal, ...(options.wait ? { waitOnRateLimit: false as const } : {}) });
      } catch (err) {
        // Someone (or an earlier run) checked moments ago: wait as the server asks.
        if (!(options.wait && err instanceof ApiError && err.status === 429)) throw err;
        const retryMs = Number(err.headers.get("retry-after") ?? "10") * 1000;
        ctx.info(`checked moments ago; next check in ${Math.round(retryMs / 1000)} s`);
        if (clock.now().getTime() + retryMs > deadline) break;
        await clock.sleep(retryMs, ctx.io.signal);
        continue;
      }
      current = findDomain((await listDomains(client, teamId, ctx.io.signal)).domains, target.id);
      for (const record of current.dnsRecords) {
        const key = `${record.purpose} ${record.host}`;
        if (seen.get(key) !== record.status) {
          seen.set(key, record.status);
          const colour = record.status === "verified" ? ctx.color.green : record.status === "failed" ? ctx.color.red : ctx.color.yellow;
          ctx.info(`${PURPOSE[record.purpose].padEnd(11)} ${record.type.padEnd(5)} ${record.host}: ${colour(record.status)}${record.error ? ` (${record.error})` : ""}`);
        }
      }
      if (!options.wait || current.status === "verified") break;
      const remaining = deadline - clock.now().getTime();
      if (remaining <= 0) break;
      const pause = Math.min(pauseMs, remaining);
      ctx.info(`${current.domain} is ${current.status}; checking again in ${pause >= 1000 ? `${Math.round(pause / 1000)} s` : `${pause} ms`} (attempt ${attempt + 1})`);
      await clock.sleep(pause, ctx.io.signal);
      pauseMs = Math.min(pauseMs * 2, 300_000);
    }
    if (options.json) printJson(ctx.io, current);
    else printRecords(ctx, current.dnsRecords, true);
    if (current.status === "verified") ctx.info(ctx.color.green(`${current.domain} is verified.`));
    else if (options.wait) {
      throw new CliError(`${current.domain} is still ${current.status} after ${options.timeout}${current.lastError ? `: ${current.lastError}` : ""}`, EXIT.error);
    } else ctx.info(`${current.domain} is ${current.status}${current.lastError ? `: ${current.lastError}` : ""}`);
  });
  example(verify, "outreach domains verify example.com", "outreach domains verify example.com --wait --timeout 30m", "outreach domains verify dom_3kF9x2… --json");

  const rm = domains
    .command("rm")
    .description("remove a sending domain and its DKIM key")
    .argument("<domain>", "domain name or id")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (ref: string, options: { yes?: boolean }) => {
      const client = await api();
      const target = findDomain((await listDomains(client, await activeTeamId(client, ctx.io.signal), ctx.io.signal)).domains, ref);
      if (!options.yes) {
        if (!(ctx.io.stdinIsTTY && ctx.io.stderrIsTTY)) throw new UsageError(`pass --yes to remove ${target.domain} without a terminal to confirm on`);
        const ok = await confirm(
          { message: `Remove ${target.domain} and its DKIM key? Mail signed with it can no longer be sent.`, default: false },
          promptContext(ctx.io),
        );
        if (!ok) {
          ctx.info("Nothing removed.");
          return;
        }
      }
      await client.call("sendingDomains.delete", { params: { id: target.id }, signal: ctx.io.signal });
      ctx.info(`Removed ${target.domain} (${target.id}).`);
    });
  example(rm, "outreach domains rm example.com", "outreach domains rm dom_3kF9x2… --yes");
}
