import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { printJson, printRows } from "../output.js";
import { example, pageFlags, withJson } from "./shared.js";

/** `outreach campaigns replies ID`: the replies read from the mailbox, newest first. Added to the `campaigns` group. */
export function registerCampaignReplies(program: Command, ctx: CommandContext): void {
  const campaigns = program.commands.find((c) => c.name() === "campaigns");
  if (!campaigns) throw new Error("register the campaigns commands first");
  const replies = withJson(
    campaigns
      .command("replies")
      .description("list the replies and auto-replies to a campaign's messages, newest first (read from OUTREACH_IMAP_URL by serve or replies sync)")
      .argument("<id>", "campaign id")
      .option("--page <n>", "page number (default 1)")
      .option("--limit <n>", "replies per page, 1..100 (default 20)"),
  ).action(async (id: string, options: { page?: string; limit?: string; json?: boolean }) => {
    const result = await (await ctx.client()).call("campaigns.replies", { params: { id }, query: pageFlags(options) });
    if (options.json) return printJson(ctx.io, result);
    printRows(ctx.io, ctx.env, result.replies, [
      { header: "RECEIVED", value: (r) => r.receivedAt },
      { header: "CONTACT", value: (r) => r.contactId },
      { header: "STEP", value: (r) => r.step },
      { header: "FROM", value: (r) => r.from },
      { header: "AUTO", value: (r) => (r.autoReply ? "auto-reply" : "") },
      { header: "SUBJECT", value: (r) => r.subject },
      { header: "SNIPPET", value: (r) => r.snippet.replace(/\s+/g, " ") },
    ]);
    if (result.totalPages > 1) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} replies); next: --page ${result.page + 1}`);
  });
  example(replies, "outreach campaigns replies cmp_3kF9x2aB7dQ1LmZp", "outreach campaigns replies cmp_3kF9x2aB7dQ1LmZp --json | jq '.replies[].snippet'");
}
