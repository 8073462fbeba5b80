import { Option, type Command } from "commander";
import { CampaignType } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { printCampaign, readBody } from "./campaign-output.js";
import { addSequenceOptions, sequenceBody, type SequenceFlags } from "./sequence-flags.js";

/**
 * `outreach campaigns create`: a campaign (lifetime ones start as drafts). The flags are the
 * options: what needs checking is in files (--body-file, --follow-up), read by the run.
 */
export interface CreateOptions extends SequenceFlags {
  name: string;
  subject: string;
  type: CampaignType;
  scheduledAt?: string;
  bodyFile?: string;
  sendingDomain?: string;
  json?: boolean;
}

export function registerCreate(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "create",
      description: "create a campaign; lifetime campaigns start as drafts",
      json: true,
      examples: [
        'outreach campaigns create --name "Welcome" --subject "Welcome to Acme"',
        'outreach campaigns create --type one-time --name "November news" --subject "News" --scheduled-at 2026-12-01T09:00:00Z',
        'outreach campaigns create --type one-time --name "Hello" --subject "Hello {{ contact.name }}" --body-file hello.md --sending-domain dom_4Rt8…',
      ],
    },
    (command) =>
      addSequenceOptions(
        command
          .requiredOption("--name <name>", "campaign name")
          .requiredOption("--subject <subject>", "email subject")
          .addOption(new Option("--type <type>", "campaign type").choices(CampaignType.options).default("lifetime"))
          .option("--scheduled-at <datetime>", "send time of a one-time campaign (ISO 8601, e.g. 2026-12-01T09:00:00Z)")
          .option("--body-file <file>", "the Markdown body, a Liquid template over contact, brand and unsubscribeUrl (- for stdin)")
          .option("--sending-domain <id>", "the verified sending domain to send from (default: the workspace's first verified one)"),
        false,
      ),
  ).action((options: CreateOptions) => runCreate(ctx, options));
}

export async function runCreate(ctx: CommandContext, options: CreateOptions): Promise<void> {
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
}
