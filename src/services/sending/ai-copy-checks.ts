import { z } from "zod";
import { isAppError } from "../../core/errors.js";
import { BODY_MARKDOWN_MAX } from "../../core/schemas/campaign.js";
import { FollowUpInput } from "../../core/schemas/sequence.js";
import { describeZodError } from "../../core/validation.js";
import type { Draft } from "../../core/schemas/ai-drafts.js";
import { otherLanguage } from "./language-guess.js";
import type { MessageTemplates, TemplateField } from "./message-template.js";

/**
 * What a model's campaign copy must pass before anyone sees it (docs/api.md, "AI drafts"):
 * the shape and the campaign length bounds, valid Liquid over the variables a campaign may
 * use (the same strict check as campaign create), and no link but the brand's website and
 * `{{ unsubscribeUrl }}`. Each check returns the problem as one sentence, which is what the
 * repair round sends back to the model and what the final 502 names.
 */

/** The answer asked for; the bounds are the campaign's (subject ≤ 500, body ≤ 100,000, delays PT1M..P60D). */
export function draftAnswerSchema(followUps: number) {
  return z.object({
    subject: z.string().trim().min(1).max(500),
    bodyMarkdown: z.string().max(BODY_MARKDOWN_MAX).refine((v) => v.trim() !== "", "must not be empty"),
    followUps: z
      .array(z.object({ delay: FollowUpInput.shape.delay, subject: z.string().trim().min(1).max(500), bodyMarkdown: FollowUpInput.shape.bodyMarkdown }))
      .length(followUps),
  });
}

// Allowed link targets as written in a template: the unsubscribe URL and the brand's website variable.
const ALLOWED_VARIABLES = /\{\{-?\s*(unsubscribeUrl|brand\.websiteUrl)\s*-?\}\}/g;
const MARKDOWN_LINK = /\]\(\s*<?([^)\s>]*)/g;
const AUTOLINK = /<([a-z][a-z0-9+.-]{1,31}:[^<>\s]*)>/gi;
const BARE_URL = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.|mailto:)[^\s<>()[\]"'`]*/gi;

function hostOf(url: string): string | undefined {
  try {
    return new URL(/^www\./i.test(url) ? `https://${url}` : url).hostname.replace(/^www\./, "").toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The first link of `text` that goes anywhere but the brand's site (`websiteUrl`'s host)
 * or the unsubscribe URL: Markdown link targets, autolinks and bare URLs. Undefined when none.
 */
export function foreignLink(text: string, websiteUrl: string | null | undefined): string | undefined {
  const brandHost = websiteUrl ? hostOf(websiteUrl) : undefined;
  const stripped = text.replace(ALLOWED_VARIABLES, "");
  const allowed = (target: string) => {
    if (target === "") return true; // the target was one of the allowed variables
    const host = hostOf(target);
    return brandHost !== undefined && host === brandHost && /^(https?:\/\/|www\.)/i.test(target);
  };
  for (const pattern of [MARKDOWN_LINK, AUTOLINK, BARE_URL]) {
    for (const match of stripped.matchAll(pattern)) {
      const target = (match[1] ?? match[0]).replace(/[.,;:!?]+$/, "");
      if (!allowed(target)) return target;
    }
  }
  return undefined;
}

/** The Liquid check of campaign create, as a sentence (`bodyMarkdown uses an unknown variable contact.nme (known: …)`). */
async function liquidProblem(templates: MessageTemplates, field: TemplateField, text: string, brand: Record<string, unknown>, label: string): Promise<string | undefined> {
  try {
    await templates.validate(field, text, brand, label);
    return undefined;
  } catch (err) {
    if (isAppError(err)) return err.message.replace(/^invalid body: /, "");
    throw err;
  }
}

/** The draft, or the first problem with the model's answer. */
export async function checkDraft(
  answer: Record<string, unknown> | undefined,
  followUps: number,
  templates: MessageTemplates,
  brand: Record<string, unknown> & { websiteUrl: string | null },
  language: string,
): Promise<{ draft: Draft } | { problem: string }> {
  if (!answer) return { problem: "the answer was not a JSON object: answer with exactly one JSON object and nothing else" };
  const parsed = draftAnswerSchema(followUps).safeParse(answer);
  if (!parsed.success) return { problem: describeZodError(parsed.error, "answer") };
  const { subject, bodyMarkdown } = parsed.data;
  const steps = parsed.data.followUps.map((s) => ({ delay: s.delay, subject: s.subject, bodyMarkdown: s.bodyMarkdown }));
  const fields: Array<[TemplateField, string, string]> = [
    ["subject", subject, "subject"],
    ["bodyMarkdown", bodyMarkdown, "bodyMarkdown"],
    ...steps.flatMap((s, i): Array<[TemplateField, string, string]> => [
      ["subject", s.subject, `followUps[${i}].subject`],
      ["bodyMarkdown", s.bodyMarkdown, `followUps[${i}].bodyMarkdown`],
    ]),
  ];
  for (const [field, text, label] of fields) {
    const problem = await liquidProblem(templates, field, text, brand, label);
    if (problem) return { problem };
    const link = foreignLink(text, brand.websiteUrl);
    if (link) {
      const allowed = brand.websiteUrl ? `the brand's website ${brand.websiteUrl} and {{ unsubscribeUrl }}` : "{{ unsubscribeUrl }} (the brand has no websiteUrl)";
      return { problem: `${label} links to ${link}: the only links allowed are ${allowed}` };
    }
    const written = otherLanguage(text, language);
    if (written) return { problem: `${label} seems to be written in ${written}, not ${language}: write every subject and body in ${language}` };
  }
  return { draft: { subject, bodyMarkdown, followUps: steps } };
}

/**
 * An opener's problem, or undefined: one sentence of at most 300 characters, one line, no
 * link of any kind and no Liquid (it is rendered as a value, so a tag would show as text).
 */
export function openerProblem(opener: unknown, max: number, facts?: string): string | undefined {
  if (typeof opener !== "string" || opener.trim() === "") return "opener must be a non-empty string";
  const text = opener.trim();
  if (text.length > max) return `opener must be at most ${max} characters long (got ${text.length})`;
  if (/[\r\n]/.test(text)) return "opener must be one line";
  if (/\{\{|\{%|%\}|\}\}/.test(text)) return "opener must not contain Liquid ({{ }} or {% %})";
  const link = foreignLink(text, null) ?? /\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|de|fr|uk|eu|info|biz|co)\b/i.exec(text)?.[0];
  if (link) return `opener must not contain a link or a web address (found ${link})`;
  // A second sentence: an end mark followed by more words (abbreviations like "Dr." are rare in one-liners).
  if (/[.!?…]["”’)]*\s+\S/.test(text)) return "opener must be one sentence";
  // The one invented fact a machine can spot: a number (a year, a count, a price) the facts do not hold.
  if (facts !== undefined) {
    const invented = (text.match(/\d+(?:[.,]\d+)*/g) ?? []).find((n) => !facts.includes(n));
    if (invented) return `opener states ${invented}, which is not in the contact's facts: use only the facts given`;
  }
  return undefined;
}
