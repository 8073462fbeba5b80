import { z } from "zod";
import { IdParam, Timestamp } from "./common.js";

/** `one-time` campaigns are sent once; `lifetime` campaigns are triggered per contact. */
export const CampaignType = z.enum(["one-time", "lifetime"]);
export type CampaignType = z.infer<typeof CampaignType>;

/** Statuses of lifetime campaigns (docs/api.md, "Campaigns"). */
export const LifetimeStatus = z.enum(["draft", "active", "paused", "archived"]);
export type LifetimeStatus = z.infer<typeof LifetimeStatus>;

/**
 * Statuses of one-time campaigns (the service API leaves them open; ours): `draft`, `scheduled`
 * when a `scheduledAt` is set, `sent` once delivered (sending is not part of this release).
 */
export const OneTimeStatus = z.enum(["draft", "scheduled", "sent"]);
export type OneTimeStatus = z.infer<typeof OneTimeStatus>;

export const CampaignStatus = z.enum(["draft", "scheduled", "sent", "active", "paused", "archived"]);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

export const Campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    type: CampaignType,
    status: CampaignStatus,
    subject: z.string(),
    scheduledAt: Timestamp.nullable(),
    sentAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Campaign" });
export type Campaign = z.infer<typeof Campaign>;

export const CampaignResponse = z.object({ campaign: Campaign }).meta({ id: "CampaignResponse" });

/** ISO 8601 date-time with an offset; normalised to UTC with milliseconds by the service. */
export const DateTimeInput = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00Z" });

export const CreateCampaignBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  type: CampaignType,
  // RFC 5322 caps a header line at 998 characters; subjects beyond a few hundred are a mistake.
  subject: z.string().trim().min(1).max(500),
  scheduledAt: DateTimeInput.nullable().optional(),
});
export type CreateCampaignBody = z.infer<typeof CreateCampaignBody>;

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

export const ExecutionStatus = z.enum(["pending", "queued", "sent", "cancelled", "failed"]);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

export const CampaignExecution = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    contactId: z.string(),
    step: z.number().int(),
    status: ExecutionStatus,
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
});
export type ListExecutionsQuery = z.infer<typeof ListExecutionsQuery>;

export const ExecutionList = z
  .object({
    executions: z.array(CampaignExecution),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "ExecutionList" });
