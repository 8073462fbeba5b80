import { z } from "zod";

/** ISO 8601 UTC with milliseconds, as every timestamp on the wire. */
export const Timestamp = z.string().meta({ format: "date-time", example: "2026-11-22T10:00:00.000Z" });

export const ErrorBody = z
  .object({
    error: z.string(),
    code: z.string().optional(),
  })
  .meta({ id: "Error" });

export const SuccessBody = z.object({ success: z.literal(true) }).meta({ id: "Success" });

/** Path parameter `{id}`: an opaque identifier. */
export const IdParam = z.string().min(1).max(64);
/** The path parameters of a route on one resource (`/…/:id`). */
export const IdParams = z.strictObject({ id: IdParam });

/** Emails: the practical subset of RFC 5321 that mail servers accept, at most 254 characters. */
export const Email = z.email({ message: "must be a valid email address" }).max(254);

/**
 * A value of a free-form object (its bounds are checked where it is used, e.g. the brand's
 * design system: size and depth); typed `unknown`, documented as the OpenAPI document's JsonValue component.
 */
export const FreeFormValue = z.unknown().meta({ documentedAs: "JsonValue" });
