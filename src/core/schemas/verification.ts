import { z } from "zod";
import { Timestamp } from "./common.js";

/** docs/api.md, "Address verification". */
export const VerificationStatus = z.enum(["deliverable", "undeliverable", "risky", "unknown"]);
export type VerificationStatus = z.infer<typeof VerificationStatus>;

export const SmtpCheck = z.enum(["accepted", "rejected", "catch-all", "greylisted", "unreachable", "skipped"]);
export type SmtpCheck = z.infer<typeof SmtpCheck>;

export const Verification = z
  .object({
    status: VerificationStatus,
    reason: z.string(),
    checkedAt: Timestamp,
    checks: z.object({
      syntax: z.boolean(),
      mx: z.boolean(),
      smtp: SmtpCheck,
      disposable: z.boolean(),
      role: z.boolean(),
      /**
       * Addition: how the probe's session was protected: `none` (no STARTTLS offered),
       * `valid`, or the certificate's problem (a bad certificate never fails the probe).
       * Absent when no session was made.
       */
      tls: z.string().optional(),
    }),
  })
  .meta({ id: "Verification" });
export type Verification = z.infer<typeof Verification>;

/** At most this many ids per call; more: `all`. */
export const VERIFY_MAX_IDS = 1000;

/** `POST /api/v1/contacts/verify`: exactly one of `contactIds` and `all`. */
export const VerifyBody = z
  .strictObject({
    contactIds: z.array(z.string().min(1).max(64)).min(1).max(VERIFY_MAX_IDS).optional(),
    all: z.literal(true).optional(),
  })
  .refine((v) => (v.contactIds === undefined) !== (v.all === undefined), "must have exactly one of contactIds (a list of contact ids) and all (true)")
  .meta({ id: "VerifyContactsBody" });
export type VerifyBody = z.infer<typeof VerifyBody>;

export const VerificationTally = z.object({
  deliverable: z.number().int(),
  undeliverable: z.number().int(),
  risky: z.number().int(),
  unknown: z.number().int(),
});
export type VerificationTally = z.infer<typeof VerificationTally>;

export const VerifyResult = z.object({ checked: z.number().int(), byStatus: VerificationTally }).meta({ id: "VerifyContactsResult" });
export type VerifyResult = z.infer<typeof VerifyResult>;

/** A progress line: the tally so far, and the total when known (an `all` run counts first). */
export const VerifyProgress = z
  .object({ checked: z.number().int(), total: z.number().int().nullable(), byStatus: VerificationTally })
  .meta({ id: "VerifyContactsProgress" });
export type VerifyProgress = z.infer<typeof VerifyProgress>;
