import { z } from "zod";
import { Timestamp } from "./common.js";
import { TimeZoneName } from "./sequence.js";

/** Addition (sequences): the contact's IANA time zone, for send windows; null: the brand's. */
const ContactTimeZone = TimeZoneName.nullable().optional().describe(
  "Addition (sequences): the contact's IANA time zone for send windows (set from a lead's coordinates on import); null: the brand's.",
);
import { Verification, VerificationStatus } from "./verification.js";

/**
 * Bounds of contact fields (docs/api.md, "Contacts"). Every one is enforced with a 400
 * naming the field: the email at RFC 5321's 254, names and phones at what real address
 * books hold, tags small enough to stay a label rather than a note.
 */
export const CONTACT_LIMITS = {
  email: 254,
  name: 200,
  phone: 64,
  description: 2000,
  tags: 50,
  tag: 64,
  importBatch: 500,
} as const;

/** `bounced` (an addition): a permanent bounce was received for the address. */
/** `replied` (an addition, sequences): the contact answered a campaign; sent to only when a launch names it. */
export const ContactStatus = z.enum(["active", "unsubscribed", "bounced", "replied"]);
/** The statuses a message may go to: `replied` only where a launch or a trigger asked for it. */
export const SENDABLE_CONTACT_STATUSES: readonly string[] = ["active", "replied"] satisfies ContactStatus[];
export type ContactStatus = z.infer<typeof ContactStatus>;

/** Emails: trimmed, the practical subset of RFC 5321 that mail servers accept. */
export const ContactEmail = z
  .string()
  .trim()
  .max(CONTACT_LIMITS.email)
  .pipe(z.email({ message: "must be a valid email address" }));

const ContactName = z.string().trim().min(1).max(CONTACT_LIMITS.name);
// Digits, spaces and the punctuation phone numbers are written with; an extension after
// "x", "ext" or "#". Every phone a lead can carry (core/lead-values.ts) is one, so an
// imported lead keeps its phone ("(+41) 44 …", "+49 89 123 #12").
const ContactPhone = z
  .string()
  .trim()
  .max(CONTACT_LIMITS.phone)
  .regex(/^[0-9 ()+.\-/]*(?:\s*(?:x|ext\.?|#)\s*[0-9]+)?$/i, "must be a phone number (digits, spaces, + ( ) . - /)")
  .refine((v) => /[0-9]/.test(v) || v === "", "must contain digits");
const ContactDescription = z.string().max(CONTACT_LIMITS.description);
// Tags are labels: trimmed, no commas (the list filter is a comma list) and no control characters.
const ContactTag = z
  .string()
  .trim()
  .min(1)
  .max(CONTACT_LIMITS.tag)
  .regex(/^[^,\p{Cc}]+$/u, "must not contain commas or control characters");
const ContactTags = z
  .array(ContactTag)
  .max(CONTACT_LIMITS.tags)
  // Duplicates dropped; an overwrite keeps it an array of strings on both sides (OpenAPI).
  .overwrite((tags) => [...new Set(tags)]);

/** Endpoint 9 body: `email` and `name` required, the rest optional (`status` defaults to active). */
export const ContactInput = z
  .strictObject({
    email: ContactEmail,
    name: ContactName,
    phone: ContactPhone.nullable().optional(),
    description: ContactDescription.nullable().optional(),
    tags: ContactTags.optional(),
    status: ContactStatus.optional(),
    timeZone: ContactTimeZone,
  })
  .meta({ id: "ContactInput" });
export type ContactInput = z.output<typeof ContactInput>;

/** Endpoint 12 body: any non-empty subset of email, name, phone, description, tags. */
export const ContactUpdate = z
  .strictObject({
    email: ContactEmail.optional(),
    name: ContactName.optional(),
    phone: ContactPhone.nullable().optional(),
    description: ContactDescription.nullable().optional(),
    tags: ContactTags.optional(),
    timeZone: ContactTimeZone,
  })
  .refine((v) => Object.keys(v).length > 0, "must change at least one of email, name, phone, description, tags, timeZone")
  .meta({ id: "ContactUpdate" });
export type ContactUpdate = z.output<typeof ContactUpdate>;

/** A contact as the API returns it, decrypted. */
export const Contact = z
  .object({
    id: z.string(),
    email: z.string().meta({ format: "email" }),
    name: z.string(),
    phone: z.string().nullable(),
    description: z.string().nullable(),
    status: ContactStatus,
    tags: z.array(z.string()),
    timeZone: z.string().nullable().describe("Addition (sequences): the contact's IANA time zone for send windows; null: the brand's."),
    /**
     * Addition: the last address verification, null before one (or after the email changed).
     * Optional on the wire: a server without verification (service-api.md) leaves it out.
     */
    verification: Verification.nullable().optional(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Contact" });
export type Contact = z.infer<typeof Contact>;

export const AddContactResponse = z.object({ success: z.literal(true), contact: z.object({ id: z.string() }) });
export const ContactResponse = z.object({ contact: Contact });

const commaList = <T extends z.ZodType<string, string>>(item: T, max: number) =>
  z
    .string()
    .max(4000)
    .transform((s) => [...new Set(s.split(",").map((p) => p.trim()).filter(Boolean))])
    .pipe(z.array(item).max(max));

const integerParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);

/** Endpoint 10 query: out-of-range values are a 400, never clamped. */
export const ContactListQuery = z.strictObject({
  page: integerParam(1, 1_000_000, 1),
  limit: integerParam(1, 100, 20),
  search: z.string().trim().min(1).max(CONTACT_LIMITS.email).optional(),
  tags: commaList(ContactTag, CONTACT_LIMITS.tags).optional(),
  status: commaList(ContactStatus, ContactStatus.options.length).optional(),
  /** Addition: comma list of verification statuses, or `unverified` (never verified). */
  verification: commaList(z.enum([...VerificationStatus.options, "unverified"]), VerificationStatus.options.length + 1).optional(),
});
export type ContactListQuery = z.output<typeof ContactListQuery>;

export const ContactList = z
  .object({
    contacts: z.array(Contact),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "ContactList" });
export type ContactList = z.infer<typeof ContactList>;

/** Addition: bulk create (the import's batch path). Each item is validated on its own. */
export const ContactImportBody = z.strictObject({
  // Each item is validated on its own (a bad one is reported, the others imported), so the
  // body takes any value here; the document describes an item as ContactInput.
  contacts: z.array(z.unknown().meta({ documentedAs: "ContactInput" })).min(1).max(CONTACT_LIMITS.importBatch),
  tags: ContactTags.optional(),
});
export const ContactImportOutcome = z.object({
  index: z.number().int(),
  status: z.enum(["created", "duplicate", "invalid", "limit_reached"]),
  id: z.string().optional(),
  error: z.string().optional(),
});
export type ContactImportOutcome = z.infer<typeof ContactImportOutcome>;
export const ContactImportResponse = z
  .object({
    created: z.number().int(),
    duplicates: z.number().int(),
    invalid: z.number().int(),
    limitReached: z.number().int(),
    results: z.array(ContactImportOutcome),
  })
  .meta({ id: "ContactImportResult" });
export type ContactImportResponse = z.infer<typeof ContactImportResponse>;
