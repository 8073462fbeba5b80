import { z } from "zod";
import { Email, FreeFormValue } from "./common.js";
import { TimeZoneName } from "./sequence.js";

/** Bounds of `brandDesignSystem`: it is read by writers and templates, not a document store. */
export const DESIGN_SYSTEM_MAX_BYTES = 64 * 1024;
export const DESIGN_SYSTEM_MAX_DEPTH = 8;

/** Nesting depth of a JSON value: a scalar is 0, `{}` is 1, `{a: {}}` is 2. */
export function jsonDepth(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, jsonDepth(child));
  return 1 + deepest;
}

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
      } catch {
        return false;
      }
    },
    { message: "must be an http:// or https:// URL" },
  );

/** The canonical form of a BCP 47 tag, or undefined when it is not one. */
function canonicalLanguageTag(value: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined; // RangeError: not a structurally valid tag
  }
}

/**
 * A well-formed BCP 47 tag (`en`, `de-CH`), stored in canonical case. An overwrite, not a
 * transform: it stays a string on both sides, so the OpenAPI document can say so.
 */
export const LanguageTag = z
  .string()
  .trim()
  .min(2)
  .max(35)
  .refine((value) => canonicalLanguageTag(value) !== undefined, "must be a BCP 47 language tag such as en or de-CH")
  .overwrite((value) => canonicalLanguageTag(value) ?? value);

export const DesignSystem = z.record(z.string(), FreeFormValue).superRefine((value, ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
  if (bytes > DESIGN_SYSTEM_MAX_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${DESIGN_SYSTEM_MAX_BYTES} bytes as JSON (got ${bytes})` });
  }
  const depth = jsonDepth(value);
  if (depth > DESIGN_SYSTEM_MAX_DEPTH) {
    ctx.addIssue({ code: "custom", message: `must be nested at most ${DESIGN_SYSTEM_MAX_DEPTH} levels deep (got ${depth})` });
  }
});
export type DesignSystem = Record<string, unknown>;

/**
 * Addition: the sender's physical postal address, printed in every message's footer
 * (CAN-SPAM); sending refuses while it is empty. Line breaks are kept (an address has lines).
 */
export const POSTAL_ADDRESS_MAX = 500;
const PostalAddress = z
  .string()
  .trim()
  .max(POSTAL_ADDRESS_MAX)
  .overwrite((v) => v.replace(/\r\n?/g, "\n"))
  .refine((v) => !/\p{Cc}/u.test(v.replace(/\n/g, "")), "must not contain control characters other than line breaks");

/**
 * Endpoint 14: any subset of the brand settings except `brandDesignMarkdown`; `null` clears a
 * field. The service refuses an empty PATCH (a client mistake, as for contacts).
 */
export const UpdateBrandBody = z
  .strictObject({
    brandName: z.string().trim().min(1).max(200).nullable().optional(),
    brandDescription: z.string().trim().max(2000).nullable().optional(),
    brandEmail: Email.nullable().optional(),
    websiteUrl: httpUrl.nullable().optional(),
    emailLanguage: LanguageTag.nullable().optional(),
    logoUrl: httpUrl.nullable().optional(),
    brandDesignSystem: DesignSystem.nullable().optional(),
    postalAddress: PostalAddress.nullable().optional(),
    timeZone: TimeZoneName.nullable().optional().describe("Addition (sequences): the workspace's IANA time zone for send windows; null: UTC."),
  });
export type UpdateBrandBody = z.infer<typeof UpdateBrandBody>;

export const BrandSettings = z
  .object({
    brandName: z.string().nullable(),
    brandDescription: z.string().nullable(),
    brandEmail: z.string().meta({ format: "email" }).nullable(),
    websiteUrl: z.string().nullable(),
    emailLanguage: z.string().nullable(),
    logoUrl: z.string().nullable(),
    brandDesignSystem: z.record(z.string(), FreeFormValue),
    brandDesignMarkdown: z.string(),
    postalAddress: z.string().nullable(),
    timeZone: z.string().describe("Addition (sequences): the IANA time zone of send windows for contacts without their own (default UTC)."),
  })
  .meta({ id: "BrandSettings" });
export type BrandSettings = z.infer<typeof BrandSettings>;
