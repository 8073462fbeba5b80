import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson, printRows } from "../../output.js";
import { defineVerb, pageFlags } from "../shared.js";
import { morePagesLine } from "./campaign-output.js";

/** `outreach campaigns replies ID`: the replies read from the mailbox, newest first. */
export interface RepliesFlags {
  page?: string;
  limit?: string;
  json?: boolean;
}

export interface RepliesOptions {
  id: string;
  page: number | undefined;
  limit: number | undefined;
  json?: boolean;
}

export function registerReplies(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "replies",
      description: "list the replies and auto-replies to a campaign's messages, newest first (read from OUTREACH_IMAP_URL by serve or replies sync)",
      json: true,
      examples: ["outreach campaigns replies cmp_3kF9x2aB7dQ1LmZp", "outreach campaigns replies cmp_3kF9x2aB7dQ1LmZp --json | jq '.replies[].snippet'"],
    },
    (command) =>
      command
        .argument("<id>", "campaign id")
        .option("--page <n>", "page number (default 1)")
        .option("--limit <n>", "replies per page, 1..100 (default 20)"),
  ).action((id: string, flags: RepliesFlags) => runReplies(ctx, parseRepliesOptions(id, flags)));
}

export function parseRepliesOptions(id: string, flags: RepliesFlags): RepliesOptions {
  return { id, ...pageFlags(flags), json: flags.json };
}

export async function runReplies(ctx: CommandContext, { id, json, ...query }: RepliesOptions): Promise<void> {
  const result = await (await ctx.client()).call("campaigns.replies", { params: { id }, query });
  if (json) return printJson(ctx.io, result);
  printRows(ctx.io, ctx.env, result.replies, [
    { header: "RECEIVED", value: (r) => r.receivedAt },
    { header: "CONTACT", value: (r) => r.contactId },
    { header: "STEP", value: (r) => r.step },
    { header: "FROM", value: (r) => r.from },
    { header: "AUTO", value: (r) => (r.autoReply ? "auto-reply" : "") },
    { header: "SUBJECT", value: (r) => r.subject },
    { header: "SNIPPET", value: (r) => r.snippet.replace(/\s+/g, " ") },
  ]);
  morePagesLine(ctx, result, "replies");
}
