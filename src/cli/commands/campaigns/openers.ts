import type { Command } from "commander";
import type { ApiClient } from "../../../client/api-client.js";
import type { OpenersResult } from "../../../core/schemas/ai-drafts.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printJson, printRows } from "../../output.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb } from "../shared.js";
import { morePagesLine } from "./campaign-output.js";

/**
 * `campaigns openers ID` (docs/cli.md, "AI drafts"): list a campaign's `{{ contact.opener }}`
 * values; `--generate` has the server's AI model write them, `--set CONTACT --text` edits one.
 */
export interface OpenersFlags {
  generate?: boolean;
  tags?: string;
  set?: string;
  text?: string;
  page?: string;
  limit?: string;
  json?: boolean;
}

/** One of three things to do; the server checks --page and --limit. */
export type OpenersOptions = { id: string; json?: boolean } & (
  | { action: "set"; contactId: string; text: string }
  | { action: "generate"; tags?: string[] }
  | { action: "list"; page?: string; limit?: string }
);

export function registerOpeners(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "openers",
      description: "list a campaign's per-contact openers ({{ contact.opener }}); --generate writes them with the AI model, --set edits one",
      json: true,
      examples: [
        "outreach campaigns openers cmp_3kF9x2aB7dQ1LmZp --generate --tags cafes",
        "outreach campaigns openers cmp_3kF9x2aB7dQ1LmZp",
        'outreach campaigns openers cmp_3kF9x2aB7dQ1LmZp --set ct_8hJ2kL0pQ4rS6tUv --text "Your espresso bar is the talk of the station."',
      ],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .option("--generate", "write an opener for each selected contact from that contact's own facts (replaces existing ones)")
        .option("--tags <list>", "with --generate: comma list of tags, contacts with any of them (default: every active contact)")
        .option("--set <contact-id>", "set one contact's opener (with --text)")
        .option("--text <sentence>", "with --set: the opener, one sentence of at most 300 characters")
        .option("--page <n>", "page number (default 1)")
        .option("--limit <n>", "openers per page, 1..100 (default 20)"),
  ).action((id: string, flags: OpenersFlags) => runOpeners(ctx, parseOpenersOptions(id, flags)));
}

export function parseOpenersOptions(id: string, flags: OpenersFlags): OpenersOptions {
  if (flags.set !== undefined && flags.text === undefined) throw new UsageError("--set needs --text with the opener");
  if (flags.text !== undefined && flags.set === undefined) throw new UsageError("--text goes with --set CONTACT_ID");
  if (flags.generate && flags.set) throw new UsageError("--generate and --set cannot be combined");
  if (flags.tags !== undefined && !flags.generate) throw new UsageError("--tags goes with --generate");
  if (flags.set !== undefined) return { id, json: flags.json, action: "set", contactId: flags.set, text: flags.text! };
  if (flags.generate) return { id, json: flags.json, action: "generate", tags: flags.tags?.split(",").map((t) => t.trim()).filter(Boolean) };
  return { id, json: flags.json, action: "list", page: flags.page, limit: flags.limit };
}

export async function runOpeners(ctx: CommandContext, options: OpenersOptions): Promise<void> {
  const client = await ctx.client();
  const { id } = options;
  if (options.action === "set") {
    const result = await client.call("campaigns.setOpener", { params: { id, contactId: options.contactId }, body: { opener: options.text } });
    if (options.json) return printJson(ctx.io, result);
    ctx.io.stdout.write(`${result.opener.contactId}  ${result.opener.opener}\n`);
    return;
  }
  if (options.action === "generate") return generateOpeners(ctx, client, id, options.tags, options.json);
  const list = await client.call("campaigns.listOpeners", { params: { id }, query: { page: options.page, limit: options.limit } });
  if (options.json) return printJson(ctx.io, list);
  printRows(ctx.io, ctx.env, list.openers, [
    { header: "CONTACT", value: (o) => o.contactId },
    { header: "SOURCE", value: (o) => o.source },
    { header: "OPENER", value: (o) => o.opener },
  ]);
  morePagesLine(ctx, list, "openers");
}

/** --generate: the model's openers, its progress on a spinner, each failure on stderr. */
async function generateOpeners(ctx: CommandContext, client: ApiClient, id: string, tags: string[] | undefined, json: boolean | undefined): Promise<void> {
  const spin = progressSpinner(ctx.io, "writing openers…");
  let result: OpenersResult | undefined;
  try {
    for await (const line of client.stream("campaigns.generateOpeners", { params: { id }, body: { tags }, signal: ctx.io.signal })) {
      if (line.type === "complete") result = line.data;
      else if (line.data.total !== undefined) spin.update(`writing openers… ${line.data.done ?? 0}/${line.data.total}`);
    }
  } finally {
    spin.stop();
  }
  if (!result) return;
  if (json) return printJson(ctx.io, result);
  ctx.io.stdout.write(`${result.generated} opener(s) written (${result.model}, ${result.usage.promptTokens} prompt + ${result.usage.completionTokens} completion tokens)\n`);
  for (const failure of result.failed) ctx.io.stderr.write(`${failure.contactId}: ${failure.error}\n`);
}
