import { organisationalDomain } from "../../core/domain-name.js";
import { DNS_RECORD_PURPOSE_LABELS, type DmarcStatus, type DnsRecord, type DnsRecordStatus, type DomainStatus } from "../../core/schemas/sending-domain.js";
import type { DnsAnswer, DnsLookup } from "../../providers/dns/resolver.js";

/**
 * The DNS records a sending domain publishes (docs/api.md, "Sending domains") and how each is checked.
 * Pure functions over DNS answers, so every rule is testable without a network; the
 * service does the lookups and the bookkeeping.
 */

export const OWNERSHIP_LABEL = "_outreach";
export const OWNERSHIP_PREFIX = "outreach-verification=";
export const RETURN_PATH_LABEL = "bounce";

export interface RecordPlan {
  domain: string;
  ownershipToken: string;
  dkimSelector: string;
  /** base64 of the DER SubjectPublicKeyInfo. */
  dkimPublicKey: string;
  /** The opt-in Ed25519 key: its selector and its 32-byte public key in base64. */
  dkimEd25519?: { selector: string; publicKey: string };
  returnPathTarget: string;
  spfInclude: string;
}

function fresh(record: Omit<DnsRecord, "status" | "found" | "error">): DnsRecord {
  return { ...record, status: "pending", found: null, error: null };
}

/** What to publish, in the order a DNS panel is usually filled in. */
export function plannedRecords(plan: RecordPlan): DnsRecord[] {
  const d = plan.domain;
  return [
    // Ownership at `_outreach.` rather than at the root: the root's TXT set is shared with
    // SPF and other vendors' tokens, and a dedicated name can never be mistaken for them.
    fresh({ purpose: "ownership", type: "TXT", name: OWNERSHIP_LABEL, host: `${OWNERSHIP_LABEL}.${d}`, value: `${OWNERSHIP_PREFIX}${plan.ownershipToken}`, required: true }),
    fresh({ purpose: "dkim", type: "TXT", name: `${plan.dkimSelector}._domainkey`, host: `${plan.dkimSelector}._domainkey.${d}`, value: `v=DKIM1; k=rsa; p=${plan.dkimPublicKey}`, required: true }),
    // Not required: RSA decides whether the domain may send; Ed25519 signs once its record is verified.
    ...(plan.dkimEd25519
      ? [
          fresh({
            purpose: "dkim_ed25519",
            type: "TXT",
            name: `${plan.dkimEd25519.selector}._domainkey`,
            host: `${plan.dkimEd25519.selector}._domainkey.${d}`,
            value: `v=DKIM1; k=ed25519; p=${plan.dkimEd25519.publicKey}`,
            required: false,
          }),
        ]
      : []),
    fresh({ purpose: "return_path", type: "CNAME", name: RETURN_PATH_LABEL, host: `${RETURN_PATH_LABEL}.${d}`, value: plan.returnPathTarget, required: true }),
    fresh({ purpose: "spf", type: "TXT", name: "@", host: d, value: `v=spf1 include:${plan.spfInclude} ~all`, required: false }),
    fresh({ purpose: "dmarc", type: "TXT", name: "_dmarc", host: `_dmarc.${d}`, value: "v=DMARC1; p=none", required: false }),
  ];
}

/** One record's outcome of one check, before the no-downgrade rule. */
export interface RecordOutcome {
  status: Exclude<DnsRecordStatus, "pending">;
  found: string[] | null;
  error: string | null;
}

const temporary = (reason: string): RecordOutcome => ({ status: "temporary_failure", found: null, error: `temporary DNS failure: ${reason}` });

/** Long values (DKIM keys) shortened for messages: the full value is in `value`. */
function brief(value: string, max = 48): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** DKIM/DMARC tag lists (`v=DKIM1; k=rsa; p=…`): names lower-cased, values trimmed. */
export function parseTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    if (name && !tags.has(name)) tags.set(name, part.slice(eq + 1).trim());
  }
  return tags;
}

export function checkOwnership(answer: DnsAnswer<string>, record: DnsRecord): RecordOutcome {
  if (answer.kind === "temporary") return temporary(answer.reason);
  const expected = `expected a TXT record "${record.value}"`;
  if (answer.kind === "missing") return { status: "failed", found: [], error: `no TXT record at ${record.host}; ${expected}` };
  if (answer.records.some((r) => r.trim() === record.value)) return { status: "verified", found: answer.records, error: null };
  return { status: "failed", found: answer.records, error: `the TXT records at ${record.host} do not include this domain's token; ${expected}` };
}

export function checkDkim(answer: DnsAnswer<string>, record: DnsRecord): RecordOutcome {
  if (answer.kind === "temporary") return temporary(answer.reason);
  const expectedKey = parseTags(record.value).get("p")!;
  const expected = `expected one TXT record "${brief(record.value)}" (full value in dnsRecords)`;
  const keys = answer.kind === "found" ? answer.records.filter((r) => parseTags(r).has("p")) : [];
  const found = answer.kind === "found" ? answer.records : [];
  if (keys.length === 0) return { status: "failed", found, error: `no DKIM record at ${record.host}; ${expected}` };
  if (keys.length > 1) {
    return { status: "failed", found, error: `${keys.length} DKIM records at ${record.host}: receivers may pick either, publish exactly one; ${expected}` };
  }
  const tags = parseTags(keys[0]!);
  // RFC 6376 §3.6.1: whitespace may fold anywhere inside p=.
  const publishedKey = (tags.get("p") ?? "").replace(/\s+/g, "");
  const keyType = (tags.get("k") ?? "rsa").toLowerCase();
  // The RSA record or the Ed25519 one (RFC 8463): the key type the planned record names.
  const expectedType = (parseTags(record.value).get("k") ?? "rsa").toLowerCase();
  if (publishedKey === "") return { status: "failed", found, error: `the DKIM record at ${record.host} is revoked (empty p=); ${expected}` };
  if (keyType !== expectedType) return { status: "failed", found, error: `the DKIM record at ${record.host} has key type k=${keyType}; ${expected}` };
  if (publishedKey !== expectedKey) {
    return { status: "failed", found, error: `the DKIM record at ${record.host} has another public key (p=${brief(publishedKey, 24)}); ${expected}` };
  }
  return { status: "verified", found, error: null };
}

export function checkReturnPath(answer: DnsAnswer<string>, record: DnsRecord): RecordOutcome {
  if (answer.kind === "temporary") return temporary(answer.reason);
  const expected = `expected a CNAME to ${record.value}`;
  if (answer.kind === "missing") return { status: "failed", found: [], error: `no CNAME record at ${record.host}; ${expected}` };
  if (answer.records.includes(record.value.toLowerCase())) return { status: "verified", found: answer.records, error: null };
  return { status: "failed", found: answer.records, error: `${record.host} is a CNAME to ${answer.records.join(", ")}; ${expected}` };
}

const SPF = /^v=spf1(\s|$)/i;

export function checkSpf(answer: DnsAnswer<string>, record: DnsRecord, spfInclude: string): RecordOutcome {
  if (answer.kind === "temporary") return temporary(answer.reason);
  const spf = answer.kind === "found" ? answer.records.filter((r) => SPF.test(r.trim())) : [];
  const expected = `suggested "${record.value}"`;
  if (spf.length === 0) return { status: "failed", found: [], error: `no SPF record at ${record.host} (advisory); ${expected}` };
  if (spf.length > 1) {
    return {
      status: "failed",
      found: spf,
      error: `invalid: ${spf.length} SPF records at ${record.host}, which receivers treat as a permanent error (RFC 7208 §4.5); merge them into one that includes include:${spfInclude}`,
    };
  }
  const mechanisms = spf[0]!.trim().toLowerCase().split(/\s+/);
  if (!mechanisms.some((m) => m.replace(/^[+?~]/, "") === `include:${spfInclude.toLowerCase()}`)) {
    return { status: "failed", found: spf, error: `the SPF record at ${record.host} does not include include:${spfInclude} (advisory); ${expected}` };
  }
  return { status: "verified", found: spf, error: null };
}

const DMARC = /^v\s*=\s*DMARC1\s*(;|$)/i;

export interface DmarcOutcome extends RecordOutcome {
  /** null when the check was inconclusive (temporary failure). */
  dmarcStatus: DmarcStatus | null;
}

/**
 * RFC 7489 §6.6.3: the record at `_dmarc.<domain>`, else the organisational domain's,
 * whose `sp=` (if any) then applies to the subdomain. More than one record is invalid.
 */
export async function checkDmarc(lookup: DnsLookup, domain: string, record: DnsRecord): Promise<DmarcOutcome> {
  const own = await lookup.txt(record.host);
  if (own.kind === "temporary") return { ...temporary(own.reason), dmarcStatus: null };
  let records = own.kind === "found" ? own.records.filter((r) => DMARC.test(r.trim())) : [];
  let where = record.host;
  let fromOrganisation = false;
  const org = organisationalDomain(domain);
  if (records.length === 0 && org !== domain) {
    const orgAnswer = await lookup.txt(`_dmarc.${org}`);
    if (orgAnswer.kind === "temporary") return { ...temporary(orgAnswer.reason), dmarcStatus: null };
    records = orgAnswer.kind === "found" ? orgAnswer.records.filter((r) => DMARC.test(r.trim())) : [];
    where = `_dmarc.${org}`;
    fromOrganisation = records.length > 0;
  }
  const suggested = `suggested "${record.value}" at ${record.host}`;
  if (records.length === 0) {
    const checked = org !== domain ? `${record.host} or _dmarc.${org}` : record.host;
    return { status: "failed", found: [], error: `no DMARC record at ${checked} (advisory); ${suggested}`, dmarcStatus: "missing" };
  }
  if (records.length > 1) {
    return { status: "failed", found: records, error: `invalid: ${records.length} DMARC records at ${where}; publish exactly one`, dmarcStatus: "invalid" };
  }
  const tags = parseTags(records[0]!);
  const policy = ((fromOrganisation ? (tags.get("sp") ?? tags.get("p")) : tags.get("p")) ?? "").toLowerCase();
  if (policy !== "none" && policy !== "quarantine" && policy !== "reject") {
    return { status: "failed", found: records, error: `invalid: the DMARC record at ${where} has no valid p= policy (none, quarantine or reject)`, dmarcStatus: "invalid" };
  }
  return { status: "verified", found: records, error: null, dmarcStatus: policy };
}

/**
 * A temporary failure never downgrades: a record verified before stays verified (with
 * what was found then); otherwise it becomes `temporary_failure`.
 */
export function applyOutcome(previous: DnsRecord, outcome: RecordOutcome): DnsRecord {
  if (outcome.status === "temporary_failure" && previous.status === "verified") return previous;
  return { ...previous, status: outcome.status, found: outcome.found ?? previous.found, error: outcome.error };
}

/** Verified when every required record is; failed when one is definitely wrong; else pending. */
export function domainStatus(records: readonly DnsRecord[]): DomainStatus {
  const required = records.filter((r) => r.required);
  if (required.every((r) => r.status === "verified")) return "verified";
  if (required.some((r) => r.status === "failed")) return "failed";
  return "pending";
}

/**
 * The domain's `lastError`: the first required record that is not verified, else a
 * temporary failure that was outvoted by an earlier verification; null when all is well.
 */
export function summariseErrors(records: readonly DnsRecord[], temporaryReasons: readonly string[]): string | null {
  const problem = records.find((r) => r.required && r.status !== "verified" && r.error);
  if (problem) return `${DNS_RECORD_PURPOSE_LABELS[problem.purpose]}: ${problem.error}`;
  if (temporaryReasons.length) return `temporary DNS failure (${temporaryReasons[0]}); records verified earlier were kept`;
  return null;
}

