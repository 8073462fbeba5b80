import type { Command } from "commander";
import type { UpdateCampaignBody } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { printCampaign, readBody } from "./campaign-output.js";
import { addSequenceOptions, sequenceBody, type SequenceFlags } from "./sequence-flags.js";

/** `outreach campaigns edit ID`: what commander hands over ('none' clears a field). */
export interface EditFlags extends SequenceFlags {
  name?: string;
  subject?: string;
  bodyFile?: string;
  sendingDomain?: string;
  scheduledAt?: string;
  json?: boolean;
}

export interface EditOptions extends EditFlags {
  id: string;
}

export function registerEdit(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "edit",
      description: "change a campaign that has not been launched (one-time) or is a draft (lifetime)",
      json: true,
      examples: ["outreach campaigns edit cmp_3kF9x2aB7dQ1LmZp --body-file hello.md", 'outreach campaigns edit cmp_3kF9x2aB7dQ1LmZp --subject "Hi {{ contact.name }}" --json'],
    },
    (command) =>
      addSequenceOptions(
        command
          .argument("<id>", "campaign id")
          .option("--name <name>", "campaign name")
          .option("--subject <subject>", "email subject (a Liquid template)")
          .option("--body-file <file>", "the Markdown body, a Liquid template (- for stdin)")
          .option("--sending-domain <id>", "the verified sending domain to send from ('none': the workspace's default)")
          .option("--scheduled-at <datetime>", "send time of a one-time campaign (ISO 8601; 'none' to clear)"),
        true,
      ),
  ).action((id: string, flags: EditFlags) => runEdit(ctx, parseEditOptions(id, flags)));
}

/** At least one change; the files they name are read by the run. */
export function parseEditOptions(id: string, flags: EditFlags): EditOptions {
  const changes = [flags.name, flags.subject, flags.bodyFile, flags.sendingDomain, flags.scheduledAt, flags.followUp, flags.sendWindow, flags.stopScope, flags.stopOnAutoReply];
  if (changes.every((value) => value === undefined)) {
    throw new UsageError("nothing to change: give at least one of --name, --subject, --body-file, --sending-domain, --scheduled-at, --follow-up, --send-window, --stop-scope, --stop-on-auto-reply");
  }
  return { id, ...flags };
}

export async function runEdit(ctx: CommandContext, options: EditOptions): Promise<void> {
  const body: UpdateCampaignBody = {};
  if (options.name !== undefined) body.name = options.name;
  if (options.subject !== undefined) body.subject = options.subject;
  if (options.bodyFile !== undefined) body.bodyMarkdown = await readBody(ctx, options.bodyFile);
  if (options.sendingDomain !== undefined) body.sendingDomainId = options.sendingDomain === "none" ? null : options.sendingDomain;
  if (options.scheduledAt !== undefined) body.scheduledAt = options.scheduledAt === "none" ? null : options.scheduledAt;
  Object.assign(body, sequenceBody(options, true));
  const { campaign } = await (await ctx.client()).call("campaigns.update", { params: { id: options.id }, body });
  if (options.json) return printJson(ctx.io, { campaign });
  printCampaign(ctx, campaign);
}
