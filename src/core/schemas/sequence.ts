import { z } from "zod";
import { parseDelay } from "../duration.js";
import { isTimeZone, WEEKDAYS } from "../send-window.js";

/**
 * Additions of multi-step campaigns (docs/api.md, "Sequences"): the follow-up steps, the
 * stop scope of a reply and the send window. Each field says so in the OpenAPI document.
 */

export const MAX_FOLLOW_UPS = 9;

/** An ISO 8601 duration from PT1M to P60D (core/duration.ts). */
export const FollowUpDelay = z
  .string()
  .trim()
  .max(40)
  .superRefine((value, ctx) => {
    const parsed = parseDelay(value);
    if ("error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
  })
  .overwrite((value) => value.toUpperCase());

export const FollowUpInput = z.strictObject({
  delay: FollowUpDelay.describe("Time after the previous step was sent: an ISO 8601 duration from PT1M to P60D."),
  subject: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .nullable()
    .optional()
    .describe("A Liquid template; without one the step replies in the thread: `Re: ` + step 0's subject, In-Reply-To and References."),
  bodyMarkdown: z
    .string()
    .max(100_000)
    .refine((v) => v.trim() !== "", "must not be empty")
    .describe("A Liquid template over the same variables as step 0."),
});
export type FollowUpInput = z.infer<typeof FollowUpInput>;

export const FollowUpsInput = z.array(FollowUpInput).max(MAX_FOLLOW_UPS);

export const FollowUp = z
  .object({ delay: z.string(), subject: z.string().nullable(), bodyMarkdown: z.string() })
  .meta({ id: "FollowUp", description: "Addition (sequences): one follow-up step; step n+1 is due `delay` after step n was sent." });
export type FollowUp = z.infer<typeof FollowUp>;

/** An IANA time zone name the runtime knows. */
export const TimeZoneName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine((value) => isTimeZone(value), "must be an IANA time zone name such as Europe/Berlin or America/New_York");

const LocalTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a local time HH:MM (00:00 to 23:59)");

export const SendWindowSchema = z
  .strictObject({
    days: z.array(z.enum(WEEKDAYS)).min(1).max(7).overwrite((days) => WEEKDAYS.filter((d) => days.includes(d))),
    start: LocalTime,
    end: LocalTime,
    timeZone: z.union([z.literal("contact"), TimeZoneName]).default("contact"),
  })
  .refine((w) => w.start < w.end, { message: "must be later than start (a window lies within one day)", path: ["end"] })
  .meta({
    id: "SendWindow",
    description:
      "Addition (sequences): the local days and hours a step may go out. `timeZone: contact` uses each contact's `timeZone`, else the brand's; a step due outside waits for the next opening.",
  });
export type SendWindowInput = z.infer<typeof SendWindowSchema>;

export const StopScope = z.enum(["contact", "domain"]);
export type StopScope = z.infer<typeof StopScope>;
