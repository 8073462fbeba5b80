import { VerificationStatus, type VerifyResult } from "../../../core/schemas/verification.js";
import { ContactStatus, type Contact } from "../../../core/schemas/contact.js";
import { choiceListFlag } from "../../flags.js";

/** What the `contacts` verbs share: their list flags (tags, statuses, verification) and how a contact reads in a table. */

/** A repeatable flag's values (`--tag a --tag b`). */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export const statuses = (value: string | undefined) => choiceListFlag("--status", value, ContactStatus.options);
export const VERIFICATION_FILTERS = [...VerificationStatus.options, "unverified"] as const;
export const verificationFilter = (value: string | undefined) => choiceListFlag("--verification", value, VERIFICATION_FILTERS);

/** A list as the API's comma-list query parameters take it; undefined when empty. */
export function commaList(values: readonly string[] | undefined): string | undefined {
  return values?.length ? values.join(",") : undefined;
}

/** `--tag a,b --tag c` → [a, b, c]. */
export function tagList(tags: string[] | undefined): string[] | undefined {
  return tags?.flatMap((t) => t.split(",")).map((t) => t.trim()).filter(Boolean);
}

export const CONTACT_COLUMNS = [
  { header: "ID", value: (c: Contact) => c.id },
  { header: "EMAIL", value: (c: Contact) => c.email },
  { header: "NAME", value: (c: Contact) => c.name },
  { header: "PHONE", value: (c: Contact) => c.phone },
  { header: "STATUS", value: (c: Contact) => c.status },
  { header: "TAGS", value: (c: Contact) => c.tags.join(", ") },
];

export function tallyText(t: VerifyResult["byStatus"]): string {
  return `${t.deliverable} deliverable, ${t.undeliverable} undeliverable, ${t.risky} risky, ${t.unknown} unknown`;
}

export function describeVerification(c: Contact): string {
  const v = c.verification;
  if (!v) return "not verified";
  const flags = [v.checks.role ? "role address" : "", v.checks.disposable ? "disposable domain" : ""].filter(Boolean);
  return `${v.status} (${v.reason}; smtp ${v.checks.smtp}${flags.length ? `; ${flags.join(", ")}` : ""}; ${v.checkedAt})`;
}
