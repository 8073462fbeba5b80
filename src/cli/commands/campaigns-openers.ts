import type { Command } from "commander";
import type { OpenersResult } from "../../core/schemas/ai-drafts.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { printJson, printRows } from "../output.js";
import { progressSpinner } from "../progress-spinner.js";
import { example, withJson } from "./shared.js";

/**
 * `campaigns openers ID` (docs/cli.md, "AI drafts"): list a campaign's `{{ contact.opener }}`
 * values; `--generate` has the server's AI model write them, `--set CONTACT --text` edits one.
 */
export function registerCampaignsOpeners(campaigns: Command, ctx: CommandContext): void {
  const openers = withJson(
    campaigns
      .command("openers")
      .description("list a campaign's per-contact openers ({{ contact.opener }}); --generate writes them with the AI model, --set edits one")
      .argument("<id>", "campaign id")
      .option("--generate", "write an opener for each selected contact from that contact's own facts (replaces existing ones)")
      .option("--tags <list>", "with --generate: comma list of tags, contacts with any of them (default: every active contact)")
      .option("--set <contact-id>", "set one contact's opener (with --text)")
      .option("--text <sentence>", "with --set: the opener, one sentence of at most 300 characters")
      .option("--page <n>", "page number (default 1)")
      .option("--limit <n>", "openers per page, 1..100 (default 20)"),
  ).action(async (id: string, options: { generate?: boolean; tags?: string; set?: string; text?: string; page?: string; limit?: string; json?: boolean }) => {
    if (options.set !== undefined && options.text === undefined) throw new UsageError("--set needs --text with the opener");
    if (options.text !== undefined && options.set === undefined) throw new UsageError("--text goes with --set CONTACT_ID");
    if (options.generate && options.set) throw new UsageError("--generate and --set cannot be combined");
    if (options.tags !== undefined && !options.generate) throw new UsageError("--tags goes with --generate");
    const client = await ctx.client();
    if (options.set !== undefined) {
      const result = await client.call("campaigns.setOpener", { params: { id, contactId: options.set }, body: { opener: options.text! } });
      if (options.json) return printJson(ctx.io, result);
      ctx.io.stdout.write(`${result.opener.contactId}  ${result.opener.opener}\n`);
      return;
    }
    if (options.generate) {
      const tags = options.tags?.split(",").map((t) => t.trim()).filter(Boolean);
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
      if (options.json) return printJson(ctx.io, result);
      ctx.io.stdout.write(`${result.generated} opener(s) written (${result.model}, ${result.usage.promptTokens} prompt + ${result.usage.completionTokens} completion tokens)\n`);
      for (const failure of result.failed) ctx.io.stderr.write(`${failure.contactId}: ${failure.error}\n`);
      return;
    }
    const list = await client.call("campaigns.listOpeners", { params: { id }, query: { page: options.page, limit: options.limit } });
    if (options.json) return printJson(ctx.io, list);
    printRows(ctx.io, ctx.env, list.openers, [
      { header: "CONTACT", value: (o) => o.contactId },
      { header: "SOURCE", value: (o) => o.source },
      { header: "OPENER", value: (o) => o.opener },
    ]);
    if (list.totalPages > 1) ctx.info(`page ${list.page} of ${list.totalPages} (${list.total} openers); next: --page ${list.page + 1}`);
  });
  example(
    openers,
    "outreach campaigns openers cmp_3kF9x2aB7dQ1LmZp --generate --tags cafes",
    "outreach campaigns openers cmp_3kF9x2aB7dQ1LmZp",
    'outreach campaigns openers cmp_3kF9x2aB7dQ1LmZp --set ct_8hJ2kL0pQ4rS6tUv --text "Your espresso bar is the talk of the station."',
  );
}
