import { Option, type Command } from "commander";
import { ApiClient } from "../../client/api-client.js";
import { CampaignsApi } from "../../client/campaigns.js";
import { RemoteTransport } from "../../client/transports.js";
import type { Campaign, CampaignExecution } from "../../core/schemas/campaign.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { printJson, printRecord, printRows } from "../output.js";
import { example, withJson } from "./shared.js";

/** A whole-number flag, checked here so a typo is a usage error (exit 2) before any request. */
export function intFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1 (got ${JSON.stringify(value)})`);
  return n;
}

function printCampaign(ctx: CommandContext, c: Campaign): void {
  printRecord(ctx.io, [
    ["id", c.id],
    ["name", c.name],
    ["type", c.type],
    ["status", c.status],
    ["subject", c.subject],
    ["scheduledAt", c.scheduledAt],
    ["sentAt", c.sentAt],
    ["createdAt", c.createdAt],
    ["updatedAt", c.updatedAt],
  ]);
}

const LIFECYCLE_VERBS = [
  { verb: "activate", status: "active", description: "start a draft lifetime campaign (draft → active)" },
  { verb: "pause", status: "paused", description: "pause an active lifetime campaign; cancels its pending and queued executions" },
  { verb: "resume", status: "active", description: "resume a paused lifetime campaign (paused → active)" },
  { verb: "archive", status: "archived", description: "archive a lifetime campaign for good; cancels its pending and queued executions" },
] as const;

export function registerCampaigns(program: Command, ctx: CommandContext): void {
  const campaigns = program.command("campaigns").description("create campaigns, change their lifecycle and trigger lifetime campaigns");
  const api = async () => new CampaignsApi(await ctx.client());

  const list = withJson(
    campaigns
      .command("list")
      .description("list the workspace's campaigns, newest first")
      .option("--status <list>", "comma list of statuses (draft, scheduled, sent, active, paused, archived)")
      .addOption(new Option("--type <type>", "only this type").choices(["one-time", "lifetime"]))
      .option("--page <n>", "page number (default 1)")
      .option("--limit <n>", "campaigns per page, 1..100 (default 20)"),
  ).action(async (options: { status?: string; type?: string; page?: string; limit?: string; json?: boolean }) => {
    const result = await (await api()).list({
      status: options.status,
      type: options.type,
      page: intFlag("--page", options.page),
      limit: intFlag("--limit", options.limit),
    });
    if (options.json) return printJson(ctx.io, result);
    printRows(ctx.io, ctx.env, result.campaigns, [
      { header: "ID", value: (c) => c.id },
      { header: "NAME", value: (c) => c.name },
      { header: "TYPE", value: (c) => c.type },
      { header: "STATUS", value: (c) => c.status },
      { header: "SUBJECT", value: (c) => c.subject },
      { header: "UPDATED", value: (c) => c.updatedAt },
    ]);
    if (result.totalPages > 1) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} campaigns); next: --page ${result.page + 1}`);
  });
  example(list, "outreach campaigns list", "outreach campaigns list --type lifetime --status active,paused", "outreach campaigns list --json | jq '.campaigns[].id'");

  const show = withJson(campaigns.command("show").description("show one campaign").argument("<id>", "campaign id")).action(
    async (id: string, options: { json?: boolean }) => {
      const { campaign } = await (await api()).get(id);
      if (options.json) return printJson(ctx.io, { campaign });
      printCampaign(ctx, campaign);
    },
  );
  example(show, "outreach campaigns show cmp_3kF9x2aB7dQ1LmZp");

  const create = withJson(
    campaigns
      .command("create")
      .description("create a campaign; lifetime campaigns start as drafts")
      .requiredOption("--name <name>", "campaign name")
      .requiredOption("--subject <subject>", "email subject")
      .addOption(new Option("--type <type>", "campaign type").choices(["one-time", "lifetime"]).default("lifetime"))
      .option("--scheduled-at <datetime>", "send time of a one-time campaign (ISO 8601, e.g. 2026-12-01T09:00:00Z)"),
  ).action(async (options: { name: string; subject: string; type: "one-time" | "lifetime"; scheduledAt?: string; json?: boolean }) => {
    const { campaign } = await (await api()).create({
      name: options.name,
      subject: options.subject,
      type: options.type,
      ...(options.scheduledAt ? { scheduledAt: options.scheduledAt } : {}),
    });
    if (options.json) return printJson(ctx.io, { campaign });
    printCampaign(ctx, campaign);
  });
  example(
    create,
    'outreach campaigns create --name "Welcome" --subject "Welcome to Acme"',
    'outreach campaigns create --type one-time --name "November news" --subject "News" --scheduled-at 2026-12-01T09:00:00Z',
  );

  for (const { verb, status, description } of LIFECYCLE_VERBS) {
    const command = withJson(
      campaigns
        .command(verb)
        .description(description)
        .argument("<id>", "campaign id")
        .addOption(
          new Option("--if-status <status>", "only if the campaign still has this status (else exit 5): guards against a concurrent change").choices([
            "draft",
            "active",
            "paused",
            "archived",
          ]),
        ),
    ).action(async (id: string, options: { ifStatus?: "draft" | "active" | "paused" | "archived"; json?: boolean }) => {
      const { campaign } = await (await api()).changeLifecycle(id, { status, ...(options.ifStatus ? { expectedStatus: options.ifStatus } : {}) });
      if (options.json) return printJson(ctx.io, { campaign });
      ctx.info(`${ctx.color.green("✓")} campaign ${campaign.id} (${campaign.name}) is ${campaign.status}`);
    });
    example(command, `outreach campaigns ${verb} cmp_3kF9x2aB7dQ1LmZp`, `outreach campaigns ${verb} cmp_3kF9x2aB7dQ1LmZp --json`);
  }

  const trigger = withJson(
    campaigns
      .command("trigger")
      .description("queue an active lifetime campaign for a contact (needs a team API key with scope campaigns:trigger)")
      .argument("<id>", "campaign id")
      .requiredOption("--contact <id>", "contact id")
      .option("--api-key <key>", "team API key (env OUTREACH_API_KEY); your personal token cannot trigger"),
  ).action(async (id: string, options: { contact: string; apiKey?: string; json?: boolean }) => {
    const key = options.apiKey ?? ctx.env.OUTREACH_API_KEY;
    if (!key) throw new UsageError("a team API key is needed: pass --api-key or set OUTREACH_API_KEY (create one with `outreach keys create`)");
    // Remotely, the key alone is enough (a CI job may have no personal token at all).
    const mode = ctx.mode();
    const client = mode.kind === "remote" ? new ApiClient(new RemoteTransport(mode.baseUrl), key) : (await ctx.client()).withToken(key);
    const result = await new CampaignsApi(client).trigger(id, options.contact);
    if (options.json) return printJson(ctx.io, result);
    printExecutions(ctx, [result.execution]);
    ctx.info(result.created ? "queued" : "already queued for this contact: nothing changed");
  });
  example(
    trigger,
    "outreach campaigns trigger cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ --api-key otr_key_…",
    "OUTREACH_API_KEY=otr_key_… outreach campaigns trigger cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ --json",
  );

  const executions = withJson(
    campaigns
      .command("executions")
      .description("list a campaign's executions (sending is not part of this release: they stay queued)")
      .argument("<id>", "campaign id")
      .option("--status <list>", "comma list of pending, queued, sent, cancelled, failed")
      .option("--page <n>", "page number (default 1)")
      .option("--limit <n>", "executions per page, 1..100 (default 20)"),
  ).action(async (id: string, options: { status?: string; page?: string; limit?: string; json?: boolean }) => {
    const result = await (await api()).executions(id, {
      status: options.status,
      page: intFlag("--page", options.page),
      limit: intFlag("--limit", options.limit),
    });
    if (options.json) return printJson(ctx.io, result);
    printExecutions(ctx, result.executions);
    if (result.totalPages > 1) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} executions); next: --page ${result.page + 1}`);
  });
  example(executions, "outreach campaigns executions cmp_3kF9x2aB7dQ1LmZp --status queued");
}

function printExecutions(ctx: CommandContext, rows: readonly CampaignExecution[]): void {
  printRows(ctx.io, ctx.env, rows, [
    { header: "ID", value: (e) => e.id },
    { header: "CONTACT", value: (e) => e.contactId },
    { header: "STEP", value: (e) => e.step },
    { header: "STATUS", value: (e) => e.status },
    { header: "UPDATED", value: (e) => e.updatedAt },
  ]);
}
