import { AppError } from "../../core/errors.js";
import { DRAFT_AUDIENCE_MAX, type AiProgress, type DraftBody, type DraftResponse, type Usage } from "../../core/schemas/ai-drafts.js";
import type { ChatMessage } from "../../providers/ai/chat-completions.js";
import type { AiModel } from "./ai-model.js";
import { checkDraft } from "./ai-copy-checks.js";
import type { Principal } from "../access/auth.js";
import type { BrandService } from "./brand.js";
import type { CampaignService } from "./campaigns.js";
import type { ContactService } from "../contacts/contacts.js";
import { BRAND_FIELDS, CONTACT_FIELDS, type MessageTemplates } from "./message-template.js";

/**
 * `POST /api/v1/campaigns/drafts` (docs/api.md, "AI drafts"): a campaign's subject, body
 * and follow-ups written by the configured model from a brief, in the brand's voice, then
 * checked (ai-copy-checks.ts). A failed check gets one repair round carrying the exact
 * problem; a second failure is a 502 naming it. Nothing is saved unless the draft passed.
 */

export interface CampaignDraftDeps {
  ai: AiModel;
  brand: BrandService;
  contacts: ContactService;
  campaigns: CampaignService;
  templates: MessageTemplates;
}

export interface DraftRun {
  signal?: AbortSignal;
  onProgress?: (progress: AiProgress) => void;
}

const ALLOWED_VARIABLES = [...CONTACT_FIELDS.map((f) => `contact.${f}`), ...BRAND_FIELDS.map((f) => `brand.${f}`), "unsubscribeUrl"];

/** What the prompt says about the brand: its settings, its design system as the style guide, never its ids. */
function brandFacts(brand: ReturnType<BrandService["forTeam"]>) {
  const { brandName, brandDescription, brandEmail, websiteUrl, emailLanguage, postalAddress } = brand;
  return { brandName, brandDescription, brandEmail, websiteUrl, emailLanguage, postalAddress };
}

export function draftInstructions(followUps: number, language: string, websiteUrl: string | null): string {
  return [
    "You write short, honest cold outreach emails for a small business, in its own voice and style guide.",
    `Write in this language: ${language}.`,
    "Answer with exactly one JSON object and nothing else, of this shape:",
    `{"subject": string, "bodyMarkdown": string, "followUps": [{"delay": string, "subject": string, "bodyMarkdown": string}]}`,
    `"followUps" has exactly ${followUps} item${followUps === 1 ? "" : "s"}: each a shorter follow-up sent "delay" after the previous email, delay an ISO 8601 duration from PT1M to P60D (e.g. P3D).`,
    "Subjects and bodies are Liquid templates. The only variables you may use are: " + ALLOWED_VARIABLES.map((v) => `{{ ${v} }}`).join(", ") + ". No other variable, tag or filter.",
    "bodyMarkdown is Markdown. The subject is one line of at most 120 characters.",
    `Links: none except ${websiteUrl ? `the brand's website ${websiteUrl} and ` : ""}{{ unsubscribeUrl }}. No other URL, email address link or domain.`,
    "State no fact about a recipient that the audience facts do not contain; write for the audience as a whole, using the variables for what differs.",
  ].join("\n");
}

export class CampaignDraftService {
  constructor(private readonly deps: CampaignDraftDeps) {}

  async draft(principal: Principal, body: DraftBody, run: DraftRun = {}): Promise<DraftResponse> {
    const client = this.deps.ai.require();
    const brand = this.deps.brand.forTeam(principal.teamId);
    const followUps = body.followUps ?? 0;
    const language = body.language ?? brand.emailLanguage ?? "English";
    // Contact facts go into the prompt only for an audience the user named by tags.
    const audience = body.tags?.length
      ? this.deps.contacts
          .list(principal.teamId, { page: 1, limit: DRAFT_AUDIENCE_MAX, tags: body.tags, status: ["active"] })
          .contacts.map((c) => ({ name: c.name, description: c.description, tags: c.tags }))
      : [];
    const messages: ChatMessage[] = [
      { role: "system", content: draftInstructions(followUps, language, brand.websiteUrl) },
      {
        role: "user",
        content: [
          `Brand settings (JSON): ${JSON.stringify(brandFacts(brand))}`,
          `Style guide (the brand's design system, Markdown):\n${brand.brandDesignMarkdown || "(none)"}`,
          `Audience facts (JSON, up to ${DRAFT_AUDIENCE_MAX} of the contacts it goes to): ${JSON.stringify(audience)}`,
          `Brief from the user:\n${body.brief}`,
        ].join("\n\n"),
      },
    ];
    const usage: Usage = { promptTokens: 0, completionTokens: 0 };
    let model = client.model;
    let problem = "";
    for (let round = 0; round < 2; round++) {
      run.onProgress?.({ stage: round === 0 ? "prompting" : "repairing" });
      const answer = await client.completeJson(messages, run.signal);
      usage.promptTokens += answer.usage.promptTokens;
      usage.completionTokens += answer.usage.completionTokens;
      model = answer.model;
      run.onProgress?.({ stage: "checking" });
      const checked = await checkDraft(answer.json, followUps, this.deps.templates, brand, language);
      if ("draft" in checked) {
        if (!body.save) return { draft: checked.draft, model, usage };
        run.onProgress?.({ stage: "saving" });
        const campaign = await this.deps.campaigns.create(principal, {
          name: campaignName(body.brief),
          type: "one-time",
          subject: checked.draft.subject,
          bodyMarkdown: checked.draft.bodyMarkdown,
          followUps: checked.draft.followUps.map((s) => ({ delay: s.delay, subject: s.subject, bodyMarkdown: s.bodyMarkdown })),
        });
        return { draft: checked.draft, campaign, model, usage };
      }
      problem = checked.problem;
      // The repair round: the model sees its own answer and the exact problem.
      messages.push({ role: "assistant", content: answer.content }, { role: "user", content: `Your answer failed a check: ${problem}. Answer again with the whole corrected JSON object.` });
    }
    throw new AppError("provider_error", `the AI model's draft failed the checks twice (the last time: ${problem}); nothing was saved`, { status: 502 });
  }
}

/** "AI draft: " and the brief's first line, cut to the campaign name's 200 characters. */
function campaignName(brief: string): string {
  const line = brief.split(/\r?\n/)[0]!.trim();
  return `AI draft: ${line.length > 80 ? `${line.slice(0, 79)}…` : line}`;
}
