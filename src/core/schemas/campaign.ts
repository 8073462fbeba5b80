import { z } from "zod";
import { IdParam, Timestamp } from "./common.js";
import { FollowUp, FollowUpsInput, SendWindowSchema, StopScope } from "./sequence.js";

/** `one-time` campaigns are sent once; `lifetime` campaigns are triggered per contact. */
export const CampaignType = z.enum(["one-time", "lifetime"]);
export type CampaignType = z.infer<typeof CampaignType>;

/** Statuses of lifetime campaigns (docs/api.md, "Campaigns"). */
export const LifetimeStatus = z.enum(["draft", "active", "paused", "archived"]);
export type LifetimeStatus = z.infer<typeof LifetimeStatus>;

/**
 * Statuses of one-time campaigns (the service API leaves them open; ours): `draft` until
 * launched (`scheduled` when created with a `scheduledAt`), then `scheduled` while the
 * launch's time is ahead, `sending` while executions are open, `sent` once none is,
 * `cancelled` (an addition) once `POST …/cancel` stopped it.
 */
export const OneTimeStatus = z.enum(["draft", "scheduled", "sending", "sent", "cancelled"]);
export type OneTimeStatus = z.infer<typeof OneTimeStatus>;

export const CampaignStatus = z.enum(["draft", "scheduled", "sending", "sent", "cancelled", "active", "paused", "archived"]);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

export const Campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    type: CampaignType,
    status: CampaignStatus,
    subject: z.string(),
    /** Addition: the Markdown body (a Liquid template, like `subject`). */
    bodyMarkdown: z.string(),
    /** Addition: the sending domain it is sent from; null until chosen. */
    sendingDomainId: z.string().nullable(),
    scheduledAt: Timestamp.nullable(),
    sentAt: Timestamp.nullable(),
    /** Addition: when a one-time campaign was launched; null before. */
    launchedAt: Timestamp.nullable(),
    followUps: z.array(FollowUp).describe("Addition (sequences): the steps after step 0 (the campaign's own subject and body), at most 9."),
    stopScope: StopScope.describe("Addition (sequences): whose later steps a reply stops: the contact's, or every contact's at its email domain."),
    stopOnAutoReply: z.boolean().describe("Addition (sequences): whether an auto-reply stops the sequence like a reply."),
    sendWindow: SendWindowSchema.nullable().describe("Addition (sequences): when steps may go out; null: any time."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Campaign" });
export type Campaign = z.infer<typeof Campaign>;

export const CampaignResponse = z.object({ campaign: Campaign }).meta({ id: "CampaignResponse" });

/** ISO 8601 date-time with an offset; normalised to UTC with milliseconds by the service. */
export const DateTimeInput = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00Z" });

/** The body's bound (decisions: ≤ 100,000 characters). */
export const BODY_MARKDOWN_MAX = 100_000;

const CampaignName = z.string().trim().min(1).max(200);
// RFC 5322 caps a header line at 998 characters; subjects beyond a few hundred are a mistake.
const CampaignSubject = z.string().trim().min(1).max(500);
const BodyMarkdown = z.string().max(BODY_MARKDOWN_MAX);

/** The sequence additions of create and PATCH (a draft only, like the rest). */
function sequenceFields() {
  return {
    followUps: FollowUpsInput.optional().describe("Addition (sequences): follow-up steps, at most 9; replaces the list on PATCH."),
    stopScope: StopScope.optional().describe("Addition (sequences): default contact."),
    stopOnAutoReply: z.boolean().optional().describe("Addition (sequences): default false."),
    sendWindow: SendWindowSchema.nullable().optional().describe("Addition (sequences): null removes it."),
  };
}

export const CreateCampaignBody = z.strictObject({
  name: CampaignName,
  type: CampaignType,
  subject: CampaignSubject,
  bodyMarkdown: BodyMarkdown.optional(),
  sendingDomainId: IdParam.nullable().optional(),
  scheduledAt: DateTimeInput.nullable().optional(),
  ...sequenceFields(),
});
export type CreateCampaignBody = z.infer<typeof CreateCampaignBody>;

/** `PATCH /api/v1/campaigns/{id}`: any non-empty subset; only a campaign not yet launched (409 otherwise). */
export const UpdateCampaignBody = z
  .strictObject({
    name: CampaignName.optional(),
    subject: CampaignSubject.optional(),
    bodyMarkdown: BodyMarkdown.optional(),
    sendingDomainId: IdParam.nullable().optional(),
    scheduledAt: DateTimeInput.nullable().optional(),
    ...sequenceFields(),
  })
  .refine(
    (v) => Object.keys(v).length > 0,
    "must change at least one of name, subject, bodyMarkdown, sendingDomainId, scheduledAt, followUps, stopScope, stopOnAutoReply, sendWindow",
  );
export type UpdateCampaignBody = z.infer<typeof UpdateCampaignBody>;

/**
 * `POST /api/v1/campaigns/{id}/launch`: which contacts (any of `tags`; `statuses` says
 * `active` (the default) and/or `replied`, the statuses that may be sent to: a contact that
 * replied is left out unless named) and when (default now).
 */
export const LaunchBody = z.strictObject({
  tags: z.array(z.string().trim().min(1).max(64)).max(50).optional(),
  statuses: z.array(z.enum(["active", "replied"])).min(1).max(2).optional(),
  scheduledAt: DateTimeInput.nullable().optional(),
  /** Addition: also send to contacts verified `undeliverable` (skipped by default). */
  includeUndeliverable: z.boolean().optional(),
});
export type LaunchBody = z.infer<typeof LaunchBody>;

/**
 * Endpoint 3: `{status}`. `expectedStatus` is our optional compare-and-set: the move
 * happens only if the campaign still has that status, else 409. Two clients that both saw
 * `active` and ask for different moves get exactly one 200 and one 409.
 */
export const LifecycleBody = z.strictObject({
  status: z.enum(["active", "paused", "archived"]),
  expectedStatus: LifetimeStatus.optional(),
});
export type LifecycleBody = z.infer<typeof LifecycleBody>;

const commaList = <T extends string>(values: readonly T[], name: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return undefined;
      const items = [...new Set(raw.split(",").map((s) => s.trim()).filter(Boolean))];
      const bad = items.filter((s) => !(values as readonly string[]).includes(s));
      if (bad.length) {
        ctx.addIssue({ code: "custom", message: `has unknown ${name} ${bad.map((b) => JSON.stringify(b)).join(", ")} (allowed: ${values.join(", ")})` });
        return z.NEVER;
      }
      return items as T[];
    });

const pageNumber = z.coerce.number().int().min(1).max(1_000_000).default(1);
const pageLimit = z.coerce.number().int().min(1).max(100).default(20);

/** Pagination as every list's: `page` ≥ 1 (default 1), `limit` 1..100 (default 20); out of range → 400. */
export const ListCampaignsQuery = z.strictObject({
  page: pageNumber,
  limit: pageLimit,
  status: commaList(CampaignStatus.options, "status"),
  type: CampaignType.optional(),
});
export type ListCampaignsQuery = z.infer<typeof ListCampaignsQuery>;

export const CampaignList = z
  .object({
    campaigns: z.array(Campaign),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "CampaignList" });

/**
 * `pending` waits for its time, a throttle or a retry; `queued` is claimed by the delivery
 * loop; `sending` (an addition) has been handed to the relay, whose answer is not recorded
 * yet; `sent`, `failed`, `bounced` are outcomes; `cancelled` by a pause or archive;
 * `skipped` because the contact unsubscribed or bounced first.
 */
export const ExecutionStatus = z.enum(["pending", "queued", "sending", "sent", "failed", "cancelled", "bounced", "skipped"]);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

export const CampaignExecution = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    contactId: z.string(),
    step: z.number().int(),
    status: ExecutionStatus,
    /** Delivery attempts so far (a relay's 4xx or an unreachable relay makes another). */
    attempts: z.number().int(),
    /** While pending: the earliest time it goes out. */
    nextAttemptAt: Timestamp.nullable(),
    /** The Message-ID header it was sent with. */
    messageId: z.string().nullable(),
    sentAt: Timestamp.nullable(),
    /** Why it failed, bounced or waits: the relay's answer or our reason. */
    error: z.string().nullable(),
    /**
     * True when the process stopped after handing the message to the relay and before
     * recording its answer: it may have been delivered, and is never sent again.
     */
    unconfirmed: z.boolean(),
    repliedAt: Timestamp.nullable().describe("Addition (sequences): when the contact replied to this step; null: no reply seen."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "CampaignExecution" });
export type CampaignExecution = z.infer<typeof CampaignExecution>;

export const TriggerBody = z.strictObject({ contactId: IdParam });

/** `created` is false when the contact was already queued (a retried webhook is harmless). */
export const TriggerResponse = z.object({ execution: CampaignExecution, created: z.boolean() }).meta({ id: "TriggerResponse" });

export const ListExecutionsQuery = z.strictObject({
  page: pageNumber,
  limit: pageLimit,
  status: commaList(ExecutionStatus.options, "status"),
  unconfirmed: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === "true"))
    .describe("Addition (sequences): true lists only the executions recorded as sent but unconfirmed (resolve them with …/resolve)."),
});
export type ListExecutionsQuery = z.infer<typeof ListExecutionsQuery>;

/**
 * Executions of a campaign by status (every status present, 0 when none); `replied` (an
 * addition) counts the executions whose contact replied to them, whatever their status.
 */
export const ExecutionCounts = z.record(z.enum([...ExecutionStatus.options, "replied"]), z.number().int()).meta({ id: "ExecutionCounts" });
export type ExecutionCounts = z.infer<typeof ExecutionCounts>;

/** Endpoint 4's answer; `executionCounts` is an addition. */
export const CampaignDetail = z
  .object({
    campaign: Campaign,
    executionCounts: ExecutionCounts,
    unsubscribed: z.number().int().describe("Addition (sequences): contacts this campaign had reached or queued that unsubscribed since (the funnel's last stage)."),
  })
  .meta({ id: "CampaignDetail" });

export const LaunchResponse = z
  .object({
    campaign: Campaign,
    queued: z.number().int(),
    /** Addition: contacts given a `skipped` execution instead, by reason. */
    skipped: z.object({ undeliverable: z.number().int() }),
  })
  .meta({ id: "LaunchResponse" });

export const PreviewQuery = z.strictObject({
  contactId: IdParam,
  step: z
    .string()
    .regex(/^[0-9]$/, "must be a step number from 0 to 9")
    .transform(Number)
    .optional()
    .describe("Addition (sequences): which step to render (0, the default, is the campaign's own message; n its followUps[n-1])."),
});

/** One contact's message as it would be sent (the unsubscribe link is live). */
export const MessagePreview = z
  .object({
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: "MessagePreview" });
export type MessagePreview = z.infer<typeof MessagePreview>;

export const ExecutionList = z
  .object({
    executions: z.array(CampaignExecution),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "ExecutionList" });

/** `POST …/executions/{executionId}/resolve` (an addition): what to do with an unconfirmed execution. */
export const ResolveExecutionBody = z.strictObject({
  action: z.enum(["resend", "confirm"]).describe("resend: queue it once more (the relay may have it already: your choice); confirm: it arrived, clear the flag."),
});
export type ResolveExecutionBody = z.infer<typeof ResolveExecutionBody>;

export const ExecutionResponse = z.object({ execution: CampaignExecution }).meta({ id: "ExecutionResponse" });

export const ExecutionParams = z.strictObject({ id: IdParam, executionId: IdParam });

/** `POST …/cancel` (an addition): the campaign, and how many pending or queued executions it cancelled. */
export const CancelCampaignResponse = z.object({ campaign: Campaign, cancelled: z.number().int() }).meta({ id: "CancelCampaignResponse" });
