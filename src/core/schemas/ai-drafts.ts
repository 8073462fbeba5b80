import { z } from "zod";
import { Campaign } from "./campaign.js";
import { ContactStatus } from "./contact.js";
import { FollowUp } from "./sequence.js";

/** Additions of AI drafts (docs/api.md, "AI drafts"): a campaign's copy and per-contact openers written by a model. */

export const BRIEF_MAX = 2_000;
export const DRAFT_FOLLOW_UPS_MAX = 3;
/** How many audience contacts' facts go into a draft's prompt. */
export const DRAFT_AUDIENCE_MAX = 5;
export const OPENER_MAX = 300;

const Tag = z.string().trim().min(1).max(64);
/** A language name or BCP 47 tag ("German", "de-AT"); default: the brand's emailLanguage. */
const Language = z.string().trim().min(1).max(40);

export const DraftBody = z.strictObject({
  brief: z.string().trim().min(1).max(BRIEF_MAX).describe("What the campaign is about, in the user's words."),
  followUps: z.number().int().min(0).max(DRAFT_FOLLOW_UPS_MAX).optional().describe("How many follow-up steps to write (0 to 3, default 0)."),
  tags: z.array(Tag).max(50).optional().describe("The audience: the facts of up to 5 active contacts with any of these tags go into the prompt."),
  language: Language.optional().describe("Default: the brand's emailLanguage, else English."),
  save: z.boolean().optional().describe("Also create a draft one-time campaign from the checked draft."),
});
export type DraftBody = z.infer<typeof DraftBody>;

export const Usage = z.object({ promptTokens: z.number().int(), completionTokens: z.number().int() }).meta({ id: "AiUsage" });
export type Usage = z.infer<typeof Usage>;

export const Draft = z
  .object({ subject: z.string(), bodyMarkdown: z.string(), followUps: z.array(FollowUp) })
  .meta({ id: "Draft", description: "A campaign's copy as checked: Liquid over the allowed variables, links only to the brand's site and the unsubscribe URL." });
export type Draft = z.infer<typeof Draft>;

export const DraftResponse = z
  .object({ draft: Draft, campaign: Campaign.optional(), model: z.string(), usage: Usage })
  .meta({ id: "DraftResponse" });
export type DraftResponse = z.infer<typeof DraftResponse>;

/** A progress line of a draft or openers stream: the stage reached. */
export const AiProgress = z
  .object({
    stage: z.enum(["prompting", "checking", "repairing", "saving", "generating"]),
    /** Openers: how many contacts are done, of how many. */
    done: z.number().int().optional(),
    total: z.number().int().optional(),
    /** Openers: the contact just finished. */
    contactId: z.string().optional(),
  })
  .meta({ id: "AiProgress" });
export type AiProgress = z.infer<typeof AiProgress>;

/** `POST /api/v1/campaigns/{id}/openers`: which contacts (default every active one). */
export const OpenersBody = z.strictObject({
  tags: z.array(Tag).max(50).optional().describe("Contacts with any of these tags (default: all)."),
  statuses: z.array(ContactStatus).min(1).max(ContactStatus.options.length).optional().describe("Contact statuses (default active)."),
});
export type OpenersBody = z.infer<typeof OpenersBody>;

export const Opener = z
  .object({
    contactId: z.string(),
    opener: z.string(),
    source: z.enum(["model", "user"]).describe("model: written by the AI model; user: set with PATCH."),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Opener" });
export type Opener = z.infer<typeof Opener>;

export const OpenersResult = z
  .object({
    generated: z.number().int(),
    failed: z.array(z.object({ contactId: z.string(), error: z.string() })).describe("Contacts whose opener could not be written or failed the checks twice: nothing was saved for them."),
    model: z.string(),
    usage: Usage,
  })
  .meta({ id: "OpenersResult" });
export type OpenersResult = z.infer<typeof OpenersResult>;

export const OpenerList = z
  .object({ openers: z.array(Opener), total: z.number().int(), page: z.number().int(), limit: z.number().int(), totalPages: z.number().int() })
  .meta({ id: "OpenerList" });

export const ListOpenersQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export type ListOpenersQuery = z.infer<typeof ListOpenersQuery>;

export const OpenerParams = z.strictObject({ id: z.string().min(1).max(64), contactId: z.string().min(1).max(64) });
export const SetOpenerBody = z.strictObject({ opener: z.string().trim().min(1).max(OPENER_MAX) });
export const OpenerResponse = z.object({ opener: Opener });
