import { z } from "zod";
import { Email, Timestamp } from "./common.js";

/** Query of endpoints 5 and 6: the active workspace's id (docs/api.md, "Sending domains"). */
export const TeamIdQuery = z.strictObject({ teamId: z.string().min(1).max(64) });

/**
 * Body of endpoint 5. The domain's own rules (punycode, public suffixes…) are checked by
 * the service, which names the field; here only shape and length.
 */
export const AddSendingDomainBody = z.strictObject({
  domain: z.string().min(1).max(300),
  senderEmail: Email,
  senderName: z
    .string()
    .trim()
    .min(1)
    .max(100)
    // It becomes part of a From: header: a line break would be header injection.
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: "must not contain line breaks or control characters" }),
  /** Opt in to a second DKIM signature, Ed25519-SHA256 (RFC 8463), beside the RSA one (default false). */
  dkimEd25519: z.boolean().optional(),
});
export type AddSendingDomainBody = z.infer<typeof AddSendingDomainBody>;

export const DnsRecordPurpose = z.enum(["ownership", "dkim", "dkim_ed25519", "return_path", "spf", "dmarc"]);
export type DnsRecordPurpose = z.infer<typeof DnsRecordPurpose>;

/** A record's purpose as people read it: the CLI's PURPOSE column and a domain's `lastError`. */
export const DNS_RECORD_PURPOSE_LABELS: Record<DnsRecordPurpose, string> = {
  ownership: "ownership",
  dkim: "DKIM",
  dkim_ed25519: "DKIM (Ed25519)",
  return_path: "return path",
  spf: "SPF",
  dmarc: "DMARC",
};

export const DnsRecordStatus = z.enum(["pending", "verified", "failed", "temporary_failure"]);
export type DnsRecordStatus = z.infer<typeof DnsRecordStatus>;

/**
 * One record to publish and what the last check found (the service API leaves the item
 * shape open; this is the shape Resend and SES report).
 */
export const DnsRecord = z
  .object({
    purpose: DnsRecordPurpose,
    type: z.enum(["TXT", "CNAME"]),
    /** The name relative to the domain, as DNS panels ask for it (`@` for the domain itself). */
    name: z.string(),
    /** The fully qualified host name. */
    host: z.string(),
    value: z.string(),
    /** Required for the domain to be verified; SPF and DMARC are advice. */
    required: z.boolean(),
    status: DnsRecordStatus,
    /** What DNS answered at the last check (TXT strings joined), or null. */
    found: z.array(z.string()).nullable(),
    /** Why the record is not verified (naming host and expectation), or null. */
    error: z.string().nullable(),
  })
  .meta({ id: "DnsRecord" });
export type DnsRecord = z.infer<typeof DnsRecord>;

export const DomainStatus = z.enum(["pending", "verified", "failed"]);
export type DomainStatus = z.infer<typeof DomainStatus>;

export const DmarcStatus = z.enum(["missing", "none", "quarantine", "reject", "invalid"]);
export type DmarcStatus = z.infer<typeof DmarcStatus>;

export const SendingDomain = z
  .object({
    id: z.string(),
    domain: z.string(),
    senderEmail: z.string(),
    senderName: z.string(),
    status: DomainStatus,
    ownershipToken: z.string(),
    ownershipVerifiedAt: Timestamp.nullable(),
    dnsRecords: z.array(DnsRecord),
    dkimVerified: z.boolean(),
    /** Whether the domain opted in to the Ed25519 signature (its record is among dnsRecords). */
    dkimEd25519: z.boolean(),
    /** Whether the Ed25519 record is verified: only then do messages carry the second signature. */
    dkimEd25519Verified: z.boolean(),
    returnPathVerified: z.boolean(),
    /** Null until the first check. */
    dmarcStatus: DmarcStatus.nullable(),
    lastCheckedAt: Timestamp.nullable(),
    lastError: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "SendingDomain" });
export type SendingDomain = z.infer<typeof SendingDomain>;

export const SendingDomainList = z
  .object({
    domains: z.array(SendingDomain),
    /** The oldest verified domain; null while none is verified. */
    defaultDomainId: z.string().nullable(),
    /** Why sending from custom domains is held; empty when it is not. */
    holdReason: z.string(),
    canManage: z.boolean(),
    canUseCustomSender: z.boolean(),
  })
  .meta({ id: "SendingDomainList" });
export type SendingDomainList = z.infer<typeof SendingDomainList>;
