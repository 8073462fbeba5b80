import type { Command } from "commander";
import type { DraftResponse } from "../../../core/schemas/ai-drafts.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printJson } from "../../output.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb } from "../shared.js";

/** `campaigns draft` (docs/cli.md, "AI drafts"): a campaign's copy from a brief, printed as Markdown. */

const STAGES: Record<string, string> = {
  prompting: "asking the model…",
  checking: "checking the draft…",
  repairing: "asking the model to fix the draft…",
  saving: "saving the draft campaign…",
};

export interface DraftFlags {
  brief: string;
  followUps?: string;
  tags?: string;
  language?: string;
  save?: boolean;
  json?: boolean;
}

export interface DraftOptions {
  /** The request body. */
  body: { brief: string; followUps?: number; tags?: string[]; language?: string; save?: boolean };
  json?: boolean;
}

export function registerDraft(campaigns: Command, ctx: CommandContext): void {
  defineVerb(
    campaigns,
    {
      name: "draft",
      description: "write a campaign's subject, body and follow-ups with the server's AI model, from a brief in the brand's voice",
      json: true,
      examples: [
        'outreach campaigns draft --brief "Fresh bread delivered to cafés before 7am" --follow-ups 2 --tags cafes',
        'outreach campaigns draft --brief "Winter menu" --language German --save --json | jq .campaign.id',
      ],
    },
    (command) =>
      command
        .requiredOption("--brief <text>", "what the campaign is about (at most 2,000 characters)")
        .option("--follow-ups <n>", "follow-up steps to write, 0..3 (default 0)")
        .option("--tags <list>", "comma list of tags: the facts of up to 5 of these contacts go into the prompt")
        .option("--language <language>", "the language to write in (default: the brand's emailLanguage)")
        .option("--save", "save the draft as a draft one-time campaign"),
  ).action((flags: DraftFlags) => runDraft(ctx, parseDraftOptions(flags)));
}

export function parseDraftOptions(flags: DraftFlags): DraftOptions {
  let followUps: number | undefined;
  if (flags.followUps !== undefined) {
    followUps = Number(flags.followUps);
    if (!/^\d+$/.test(flags.followUps.trim()) || followUps > 3) throw new UsageError(`--follow-ups must be a whole number from 0 to 3 (got ${JSON.stringify(flags.followUps)})`);
  }
  const tags = flags.tags?.split(",").map((t) => t.trim()).filter(Boolean);
  return { body: { brief: flags.brief, followUps, tags, language: flags.language, save: flags.save }, json: flags.json };
}

/** The draft as one Markdown document: each step a heading, its subject and delay, then its body. */
export function draftMarkdown(result: DraftResponse): string {
  const { draft } = result;
  const parts = [`# ${draft.subject}`, "", draft.bodyMarkdown.trimEnd()];
  draft.followUps.forEach((step, i) => parts.push("", "---", "", `## Follow-up ${i + 1} (after ${step.delay}): ${step.subject}`, "", step.bodyMarkdown.trimEnd()));
  return parts.join("\n") + "\n";
}

export async function runDraft(ctx: CommandContext, { body, json }: DraftOptions): Promise<void> {
  const spin = progressSpinner(ctx.io, STAGES.prompting!);
  let result: DraftResponse | undefined;
  try {
    for await (const line of (await ctx.client()).stream("campaigns.draft", { body, signal: ctx.io.signal })) {
      if (line.type === "complete") result = line.data;
      else spin.update(STAGES[line.data.stage] ?? line.data.stage);
    }
  } finally {
    spin.stop();
  }
  if (!result) return;
  if (json) return printJson(ctx.io, result);
  ctx.io.stdout.write(draftMarkdown(result));
  const tokens = `${result.usage.promptTokens} prompt + ${result.usage.completionTokens} completion tokens`;
  ctx.info(result.campaign ? `saved as draft campaign ${result.campaign.id} (${result.model}, ${tokens})` : `${result.model}, ${tokens}; --save keeps it as a draft campaign`);
}
