import type { Command } from "commander";
import { syncReplies } from "../../services/replies/reply-runtime.js";
import { describeSummary } from "../../services/replies/reply-watcher.js";
import type { CommandContext } from "../context.js";
import { printJson } from "../output.js";
import { defineVerb, type JsonOption } from "./shared.js";

/**
 * `outreach replies sync`: one pass over the new mail of OUTREACH_IMAP_URL on a local data
 * directory (what `serve` does continuously), for a cron-driven setup. An operator command:
 * it opens the data directory itself, as `deliver` does.
 */
export function registerReplies(program: Command, ctx: CommandContext): void {
  const replies = program.command("replies").description("reply detection from the mailbox in OUTREACH_IMAP_URL");
  defineVerb(
    replies,
    {
      name: "sync",
      description: "read the mailbox's new messages once: record replies and auto-replies, process bounces, stop the sequences they answer",
      json: true,
      examples: ["OUTREACH_IMAP_URL=imaps://replies%40acme.example:secret@imap.example.com/INBOX outreach replies sync", "outreach replies sync --json"],
    },
  ).action((options: JsonOption) => runRepliesSync(ctx, options));
}

export async function runRepliesSync(ctx: CommandContext, options: JsonOption): Promise<void> {
  const instance = ctx.openInstance();
  try {
    const log = (line: string) => ctx.io.stderr.write(line + "\n");
    const summary = await syncReplies(instance.services, { log, signal: ctx.io.signal });
    if (options.json) return printJson(ctx.io, summary);
    ctx.io.stdout.write(`${describeSummary(summary)}\n`);
  } finally {
    instance.close();
  }
}
