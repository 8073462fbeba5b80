import { badRequest, isAppError, type AppError } from "../../core/errors.js";
import { OPENER_MAX, type AiProgress, type ListOpenersQuery, type Opener, type OpenersBody, type OpenersResult, type Usage } from "../../core/schemas/ai-drafts.js";
import type { Contact } from "../../core/schemas/contact.js";
import type { ChatCompletionsClient, ChatMessage } from "../../providers/ai/chat-completions.js";
import type { Clock } from "../../core/clock.js";
import { openerProblem } from "../sending/ai-copy-checks.js";
import type { AiModel } from "../sending/ai-model.js";
import type { Principal } from "../access/auth.js";
import type { BrandService } from "../sending/brand.js";
import type { CampaignService } from "../sending/campaigns.js";
import type { ContactOpenerStore } from "./contact-openers.js";
import type { ContactService } from "./contacts.js";

/**
 * Openers (docs/api.md, "AI drafts"): `{{ contact.opener }}`, one sentence per contact of a
 * campaign written by the model from that contact's own facts. Each request carries one
 * contact's name, description and tags and nothing of any other contact; at most
 * OUTREACH_AI_CONCURRENCY requests are in flight. A contact whose answer fails the checks
 * twice, or whose request fails, is reported in `failed` and gets nothing saved.
 */

export interface OpenerRun {
  signal?: AbortSignal;
  onProgress?: (progress: AiProgress) => void;
}

export interface ContactOpenerServiceDeps {
  ai: AiModel;
  brand: BrandService;
  contacts: ContactService;
  campaigns: CampaignService;
  store: ContactOpenerStore;
  clock: Clock;
}

/** The facts of one contact the model may use: never its email or phone. */
export function contactFacts(contact: Pick<Contact, "name" | "description" | "tags">) {
  return { name: contact.name, description: contact.description, tags: contact.tags };
}

export class ContactOpenerService {
  constructor(private readonly deps: ContactOpenerServiceDeps) {}

  /** Every contact of the workspace the body selects, page by page. */
  private selected(teamId: string, body: OpenersBody): Contact[] {
    const out: Contact[] = [];
    for (let page = 1; ; page++) {
      const list = this.deps.contacts.list(teamId, { page, limit: 100, tags: body.tags, status: body.statuses ?? ["active"] });
      out.push(...list.contacts);
      if (page >= list.totalPages) return out;
    }
  }

  async generate(principal: Principal, campaignId: string, body: OpenersBody, run: OpenerRun = {}): Promise<OpenersResult> {
    const client = this.deps.ai.require();
    this.deps.campaigns.get(principal, campaignId);
    const brand = this.deps.brand.forTeam(principal.teamId);
    const contacts = this.selected(principal.teamId, body);
    const system = openerInstructions(brand.emailLanguage ?? "English");
    const brandLine = `Sender (JSON): ${JSON.stringify({ brandName: brand.brandName, brandDescription: brand.brandDescription })}\n\nStyle guide (Markdown):\n${brand.brandDesignMarkdown || "(none)"}`;
    const usage: Usage = { promptTokens: 0, completionTokens: 0 };
    const failed: OpenersResult["failed"] = [];
    const providerFailures: AppError[] = [];
    let generated = 0;
    let next = 0;
    run.onProgress?.({ stage: "generating", done: 0, total: contacts.length });
    const worker = async () => {
      while (next < contacts.length) {
        run.signal?.throwIfAborted();
        const contact = contacts[next++]!;
        try {
          const opener = await this.one(client, system, brandLine, contact, usage, run.signal);
          this.deps.store.put(principal.teamId, campaignId, contact.id, opener, "model", this.deps.clock.now().toISOString());
          generated++;
        } catch (err) {
          if (!isAppError(err)) throw err;
          if (err.code === "provider_error") providerFailures.push(err);
          failed.push({ contactId: contact.id, error: err.message });
        }
        run.onProgress?.({ stage: "generating", done: generated + failed.length, total: contacts.length, contactId: contact.id });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.ai.concurrency, contacts.length) }, worker));
    // The model never answered (down, a 429 storm, timeouts): that is the request's failure, not each contact's.
    if (generated === 0 && failed.length > 0 && providerFailures.length === failed.length) throw providerFailures[0]!;
    return { generated, failed, model: client.model, usage };
  }

  /** One contact's opener, checked, with one repair round. */
  private async one(client: ChatCompletionsClient, system: string, brandLine: string, contact: Contact, usage: Usage, signal?: AbortSignal): Promise<string> {
    const facts = JSON.stringify(contactFacts(contact));
    const messages: ChatMessage[] = [
      { role: "system", content: system },
      { role: "user", content: `${brandLine}\n\nRecipient facts (JSON): ${facts}` },
    ];
    let problem = "";
    for (let round = 0; round < 2; round++) {
      const answer = await client.completeJson(messages, signal);
      usage.promptTokens += answer.usage.promptTokens;
      usage.completionTokens += answer.usage.completionTokens;
      const opener = answer.json?.opener;
      problem = answer.json ? (openerProblem(opener, OPENER_MAX, facts) ?? "") : "the answer was not a JSON object: answer with exactly one JSON object and nothing else";
      if (!problem) return (opener as string).trim();
      messages.push({ role: "assistant", content: answer.content }, { role: "user", content: `Your answer failed a check: ${problem}. Answer again with the corrected JSON object.` });
    }
    throw badRequest(`the model's opener failed the checks twice (the last time: ${problem})`);
  }

  list(principal: Principal, campaignId: string, query: ListOpenersQuery) {
    this.deps.campaigns.get(principal, campaignId);
    const { openers, total } = this.deps.store.page(principal.teamId, campaignId, query.limit, (query.page - 1) * query.limit);
    return { openers, total, page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit) };
  }

  /** `PATCH …/openers/{contactId}`: checked like a generated one. */
  set(principal: Principal, campaignId: string, contactId: string, text: string): Opener {
    this.deps.campaigns.get(principal, campaignId);
    this.deps.contacts.get(principal.teamId, contactId);
    const problem = openerProblem(text, OPENER_MAX);
    if (problem) throw badRequest(`invalid body: ${problem}`);
    this.deps.store.put(principal.teamId, campaignId, contactId, text.trim(), "user", this.deps.clock.now().toISOString());
    return this.deps.store.get(principal.teamId, campaignId, contactId)!;
  }
}

export function openerInstructions(language: string): string {
  return [
    "You write the first sentence of a cold email from the sender to one local business, in the sender's voice and style guide.",
    `Write in this language: ${language}.`,
    "Use only the recipient facts given; state nothing about the recipient that they do not contain. If they say little, stay general.",
    'Answer with exactly one JSON object and nothing else: {"opener": string}.',
    "The opener is one sentence of at most 300 characters on one line: no link, no web or email address, no placeholder or {{ }}, no greeting line.",
  ].join("\n");
}
