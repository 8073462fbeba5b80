import { readFileSync } from "node:fs";
import { Option, type Command } from "commander";
import { ApiClient } from "../../client/api-client.js";
import { RemoteTransport } from "../../client/transports.js";
import {
  CampaignStatus,
  CampaignType,
  ExecutionStatus,
  LifetimeStatus,
  type Campaign,
  type ExecutionCounts,
  type UpdateCampaignBody,
} from "../../core/schemas/campaign.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { readAll } from "../io.js";
import { printJson, printRecord, printRows, timeCell } from "../output.js";
import { example, pageFlags, withJson } from "./shared.js";
import { printExecutions } from "../execution-rows.js";
import { registerCampaignsDraft } from "./campaigns-draft.js";
import { registerCampaignsOpeners } from "./campaigns-openers.js";
import { addSequenceOptions, registerSequenceVerbs, sequenceBody, sequenceLines, type SequenceFlags } from "./campaigns-sequence.js";

/** `--page` and `--limit` of the lists; the server checks the upper bounds (its 400 names them). */

function printCampaign(ctx: CommandContext, c: Campaign): void {
  printRecord(ctx.io, [
    ["id", c.id],
    ["name", c.name],
    ["type", c.type],
    ["status", c.status],
    ["subject", c.subject],
    ["sendingDomainId", c.sendingDomainId],
    ["scheduledAt", c.scheduledAt],
    ["launchedAt", c.launchedAt],
    ["sentAt", c.sentAt],
    ["createdAt", c.createdAt],
    ["updatedAt", c.updatedAt],
  ]);
}

/** `show`'s line of execution counts: the statuses that have any, in the schema's order. */
function countsLine(counts: ExecutionCounts): string {
  const parts = ExecutionStatus.options.filter((s) => counts[s] > 0).map((s) => `${s} ${counts[s]}`);
  return parts.length ? parts.join(", ") : "none";
}

/** `--body-file <file>` (Markdown, a Liquid template; `-` for stdin). */
async function readBody(ctx: CommandContext, file: string): Promise<string> {
  try {
    return file === "-" ? await readAll(ctx.io.stdin) : readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`--body-file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

const LIFECYCLE_VERBS = [
  { verb: "activate", status: "active", description: "start a draft lifetime campaign (draft → active)" },
  { verb: "pause", status: "paused", description: "pause an active lifetime campaign; cancels its pending and queued executions" },
  { verb: "resume", status: "active", description: "resume a paused lifetime campaign (paused → active)" },
  { verb: "archive", status: "archived", description: "archive a lifetime campaign for good; cancels its pending and queued executions" },
] as const;

export function registerCampaigns(program: Command, ctx: CommandContext): void {
  const campaigns = program.command("campaigns").description("create campaigns, change their lifecycle and trigger lifetime campaigns");

  const list = withJson(
    campaigns
      .command("list")
      .description("list the workspace's campaigns, newest first")
      .option("--status <list>", `comma list of statuses (${CampaignStatus.options.join(", ")})`)
      .addOption(new Option("--type <type>", "only this type").choices(CampaignType.options))
      .option("--page <n>", "page number (default 1)")
      .option("--limit <n>", "campaigns per page, 1..100 (default 20)"),
  ).action(async (options: { status?: string; type?: CampaignType; page?: string; limit?: string; json?: boolean }) => {
    const result = await (await ctx.client()).call("campaigns.list", { query: { status: options.status, type: options.type, ...pageFlags(options) } });
    if (options.json) return printJson(ctx.io, result);
    printRows(ctx.io, ctx.env, result.campaigns, [
      { header: "ID", value: (c) => c.id },
      { header: "NAME", value: (c) => c.name },
      { header: "TYPE", value: (c) => c.type },
      { header: "STATUS", value: (c) => c.status },
      { header: "SUBJECT", value: (c) => c.subject },
      { header: "UPDATED", value: (c) => timeCell(ctx.io, ctx.clock.now(), c.updatedAt) },
    ]);
    if (result.totalPages > 1) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} campaigns); next: --page ${result.page + 1}`);
  });
  example(list, "outreach campaigns list", "outreach campaigns list --type lifetime --status active,paused", "outreach campaigns list --json | jq '.campaigns[].id'");

  const show = withJson(campaigns.command("show").description("show one campaign").argument("<id>", "campaign id")).action(
    async (id: string, options: { json?: boolean }) => {
      const detail = await (await ctx.client()).call("campaigns.get", { params: { id } });
      if (options.json) return printJson(ctx.io, detail);
      printCampaign(ctx, detail.campaign);
      ctx.io.stdout.write(`executions: ${countsLine(detail.executionCounts)}\n`);
      for (const line of sequenceLines(detail.campaign, detail.executionCounts, detail.unsubscribed)) ctx.io.stdout.write(`${line}\n`);
    },
  );
  example(show, "outreach campaigns show cmp_3kF9x2aB7dQ1LmZp");

  const create = withJson(
    addSequenceOptions(
    campaigns
      .command("create")
      .description("create a campaign; lifetime campaigns start as drafts")
      .requiredOption("--name <name>", "campaign name")
      .requiredOption("--subject <subject>", "email subject")
      .addOption(new Option("--type <type>", "campaign type").choices(CampaignType.options).default("lifetime"))
      .option("--scheduled-at <datetime>", "send time of a one-time campaign (ISO 8601, e.g. 2026-12-01T09:00:00Z)")
      .option("--body-file <file>", "the Markdown body, a Liquid template over contact, brand and unsubscribeUrl (- for stdin)")
      .option("--sending-domain <id>", "the verified sending domain to send from (default: the workspace's first verified one)"),
    false),
  ).action(async (options: { name: string; subject: string; type: CampaignType; scheduledAt?: string; bodyFile?: string; sendingDomain?: string; json?: boolean } & SequenceFlags) => {
    const { campaign } = await (await ctx.client()).call("campaigns.create", {
      body: {
        name: options.name,
        subject: options.subject,
        type: options.type,
        ...(options.scheduledAt ? { scheduledAt: options.scheduledAt } : {}),
        ...(options.bodyFile !== undefined ? { bodyMarkdown: await readBody(ctx, options.bodyFile) } : {}),
        ...(options.sendingDomain ? { sendingDomainId: options.sendingDomain } : {}),
        ...sequenceBody(options, false),
      },
    });
    if (options.json) return printJson(ctx.io, { campaign });
    printCampaign(ctx, campaign);
  });
  example(
    create,
    'outreach campaigns create --name "Welcome" --subject "Welcome to Acme"',
    'outreach campaigns create --type one-time --name "November news" --subject "News" --scheduled-at 2026-12-01T09:00:00Z',
    'outreach campaigns create --type one-time --name "Hello" --subject "Hello {{ contact.name }}" --body-file hello.md --sending-domain dom_4Rt8…',
  );

  const edit = withJson(
    addSequenceOptions(
    campaigns
      .command("edit")
      .description("change a campaign that has not been launched (one-time) or is a draft (lifetime)")
      .argument("<id>", "campaign id")
      .option("--name <name>", "campaign name")
      .option("--subject <subject>", "email subject (a Liquid template)")
      .option("--body-file <file>", "the Markdown body, a Liquid template (- for stdin)")
      .option("--sending-domain <id>", "the verified sending domain to send from ('none': the workspace's default)")
      .option("--scheduled-at <datetime>", "send time of a one-time campaign (ISO 8601; 'none' to clear)"),
    true),
  ).action(async (id: string, options: { name?: string; subject?: string; bodyFile?: string; sendingDomain?: string; scheduledAt?: string; json?: boolean } & SequenceFlags) => {
    const body: UpdateCampaignBody = {};
    if (options.name !== undefined) body.name = options.name;
    if (options.subject !== undefined) body.subject = options.subject;
    if (options.bodyFile !== undefined) body.bodyMarkdown = await readBody(ctx, options.bodyFile);
    if (options.sendingDomain !== undefined) body.sendingDomainId = options.sendingDomain === "none" ? null : options.sendingDomain;
    if (options.scheduledAt !== undefined) body.scheduledAt = options.scheduledAt === "none" ? null : options.scheduledAt;
    Object.assign(body, sequenceBody(options, true));
    if (Object.keys(body).length === 0) {
      throw new UsageError("nothing to change: give at least one of --name, --subject, --body-file, --sending-domain, --scheduled-at, --follow-up, --send-window, --stop-scope, --stop-on-auto-reply");
    }
    const { campaign } = await (await ctx.client()).call("campaigns.update", { params: { id }, body });
    if (options.json) return printJson(ctx.io, { campaign });
    printCampaign(ctx, campaign);
  });
  example(edit, "outreach campaigns edit cmp_3kF9x2aB7dQ1LmZp --body-file hello.md", 'outreach campaigns edit cmp_3kF9x2aB7dQ1LmZp --subject "Hi {{ contact.name }}" --json');

  const launch = withJson(
    campaigns
      .command("launch")
      .description("send a one-time campaign: one message per active contact with any of the tags (all contacts without --tags)")
      .argument("<id>", "campaign id")
      .option("--tags <list>", "comma list of tags; a contact with any of them is sent to")
      .option("--scheduled-at <datetime>", "send at this time instead of now (ISO 8601)"),
  ).action(async (id: string, options: { tags?: string; scheduledAt?: string; json?: boolean }) => {
    const tags = options.tags?.split(",").map((t) => t.trim()).filter(Boolean);
    if (options.tags !== undefined && !tags?.length) throw new UsageError("--tags: give at least one tag (a comma list)");
    const result = await (await ctx.client()).call("campaigns.launch", {
      params: { id },
      body: { ...(tags ? { tags } : {}), ...(options.scheduledAt ? { scheduledAt: options.scheduledAt } : {}) },
    });
    if (options.json) return printJson(ctx.io, result);
    const when = result.campaign.status === "scheduled" && result.campaign.scheduledAt ? ` for ${result.campaign.scheduledAt}` : "";
    ctx.info(`${ctx.color.green("✓")} campaign ${result.campaign.id} launched: ${result.queued} message(s) queued${when}; ${ctx.queuedMessagesFate()}`);
  });
  example(launch, "outreach campaigns launch cmp_3kF9x2aB7dQ1LmZp", "outreach campaigns launch cmp_3kF9x2aB7dQ1LmZp --tags dentist,zurich --scheduled-at 2026-12-01T09:00:00Z");

  const preview = withJson(
    campaigns
      .command("preview")
      .description("render the message one contact would get: headers, subject and the text part (--html for the HTML part)")
      .argument("<id>", "campaign id")
      .requiredOption("--contact <id>", "contact id")
      .option("--step <n>", "which step: 0 (default) the first message, n the n-th follow-up")
      .option("--html", "print the HTML part instead of the text part"),
  ).action(async (id: string, options: { contact: string; step?: string; html?: boolean; json?: boolean }) => {
    const query = { contactId: options.contact, ...(options.step !== undefined ? { step: options.step } : {}) };
    const message = await (await ctx.client()).call("campaigns.preview", { params: { id }, query });
    if (options.json) return printJson(ctx.io, message);
    if (options.html) return void ctx.io.stdout.write(message.html.endsWith("\n") ? message.html : message.html + "\n");
    const lines = [`From: ${message.from}`, `To: ${message.to}`, `Subject: ${message.subject}`, ...Object.entries(message.headers).map(([k, v]) => `${k}: ${v}`), "", message.text];
    ctx.io.stdout.write(lines.join("\n") + (message.text.endsWith("\n") ? "" : "\n"));
  });
  example(preview, "outreach campaigns preview cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ", "outreach campaigns preview cmp_3kF9x2aB7dQ1LmZp --contact ct_8Hq2Lm4Xv9Rt0PaZ --html > preview.html");

  for (const { verb, status, description } of LIFECYCLE_VERBS) {
    const command = withJson(
      campaigns
        .command(verb)
        .description(description)
        .argument("<id>", "campaign id")
        .addOption(
          new Option("--if-status <status>", "only if the campaign still has this status (else exit 5): guards against a concurrent change").choices(
            LifetimeStatus.options,
          ),
        ),
    ).action(async (id: string, options: { ifStatus?: LifetimeStatus; json?: boolean }) => {
      const { campaign } = await (await ctx.client()).call("campaigns.changeLifecycle", {
        params: { id },
        body: { status, ...(options.ifStatus ? { expectedStatus: options.ifStatus } : {}) },
      });
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
    const result = await client.call("campaigns.trigger", { params: { id }, body: { contactId: options.contact } });
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
      .description("list a campaign's executions: one per contact and step, with its delivery status")
      .argument("<id>", "campaign id")
      .option("--status <list>", `comma list of ${ExecutionStatus.options.join(", ")}`)
      .option("--page <n>", "page number (default 1)")
      .option("--limit <n>", "executions per page, 1..100 (default 20)"),
  ).action(async (id: string, options: { status?: string; page?: string; limit?: string; json?: boolean }) => {
    const result = await (await ctx.client()).call("campaigns.executions", {
      params: { id },
      query: { status: options.status, ...pageFlags(options) },
    });
    if (options.json) return printJson(ctx.io, result);
    printExecutions(ctx, result.executions);
    if (result.totalPages > 1) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} executions); next: --page ${result.page + 1}`);
  });
  example(executions, "outreach campaigns executions cmp_3kF9x2aB7dQ1LmZp --status failed,bounced", "outreach campaigns executions cmp_3kF9x2aB7dQ1LmZp --json");

  registerSequenceVerbs(campaigns, ctx);
  registerCampaignsDraft(campaigns, ctx);
  registerCampaignsOpeners(campaigns, ctx);
}
