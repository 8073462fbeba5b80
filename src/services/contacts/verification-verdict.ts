import type { SmtpCheck, Verification, VerificationStatus } from "../../core/schemas/verification.js";
import type { ProbeOutcome } from "../../providers/mailbox-probe/mailbox-probe.js";
import type { SmtpReply } from "../../providers/mailbox-probe/smtp-session.js";

/** A verification before its time stamp and the checks known before the probe. */
export interface Verdict {
  status: VerificationStatus;
  reason: string;
  smtp: SmtpCheck;
  tls?: string;
}

export interface EarlyChecks {
  syntax: boolean;
  mx: boolean;
  disposable: boolean;
  role: boolean;
}

export function verification(verdict: Verdict, checks: EarlyChecks, checkedAt: string): Verification {
  return {
    status: verdict.status,
    reason: verdict.reason,
    checkedAt,
    checks: { ...checks, smtp: verdict.smtp, ...(verdict.tls === undefined ? {} : { tls: verdict.tls }) },
  };
}

function said(reply: SmtpReply): string {
  return `${reply.code}${reply.enhanced ? ` ${reply.enhanced}` : ""} ${reply.text.split("\n").pop()!.replace(/^[245]\.\d{1,3}\.\d{1,3}\s*/, "")}`.trim().slice(0, 160);
}

/**
 * Whether a 5xx to RCPT says the mailbox does not exist. The contract's rule: 550, 551, 553
 * or an enhanced 5.1.x. A 5.7.x (policy: our prober is blocked, as Spamhaus-listed IPs are
 * told) says nothing about the mailbox, even with 550: unknown, as Reacher and NeverBounce
 * treat blocks; a full mailbox (552 / 5.2.2) exists: risky.
 */
function rcptRejection(reply: SmtpReply): Verdict {
  if (reply.enhanced?.startsWith("5.7.")) return { status: "unknown", reason: `the server refused to answer for the mailbox (policy): ${said(reply)}`, smtp: "rejected" };
  if (reply.code === 552 || reply.enhanced === "5.2.2") return { status: "risky", reason: `the mailbox is full: ${said(reply)}`, smtp: "rejected" };
  if ([550, 551, 553].includes(reply.code) || reply.enhanced?.startsWith("5.1.") || reply.enhanced === "5.2.1") {
    return { status: "undeliverable", reason: `the mail server rejected the address: ${said(reply)}`, smtp: "rejected" };
  }
  return { status: "unknown", reason: `the mail server refused the address for a reason that is not about the mailbox: ${said(reply)}`, smtp: "rejected" };
}

/**
 * One address's verdict from its domain's session (decisions.md, rules in order): address
 * 250 and random 5xx → deliverable; both 250 → risky (catch-all); 550/551/553 or 5.1.x →
 * undeliverable; 4xx → unknown (greylisted, retried); no session or cut short → unknown.
 */
export function probeVerdict(address: string, outcome: ProbeOutcome): Verdict {
  if (outcome.kind === "unreachable") return { status: "unknown", reason: `no mail server answered: ${outcome.reason}`, smtp: "unreachable" };
  if (outcome.kind === "greylisted") return { status: "unknown", reason: `the mail server deferred the check (greylisting): ${outcome.reason}`, smtp: "greylisted", tls: outcome.tls };
  const tls = outcome.tls;
  const reply = outcome.recipients.get(address);
  if (!reply) return { status: "unknown", reason: `the session ended before the address was answered (${outcome.cutShort ?? "no answer"})`, smtp: "unreachable", tls };
  if (reply.code >= 400 && reply.code < 500) return { status: "unknown", reason: `the mail server deferred the address (greylisting): ${said(reply)}`, smtp: "greylisted", tls };
  if (reply.code >= 500) return { ...rcptRejection(reply), tls };
  const random = outcome.random;
  if (!random) return { status: "unknown", reason: `the address was accepted but the session ended before the catch-all test (${outcome.cutShort ?? "no answer"})`, smtp: "unreachable", tls };
  if (random.code >= 200 && random.code < 300) return { status: "risky", reason: "the domain accepts any address (catch-all): the mailbox cannot be confirmed", smtp: "catch-all", tls };
  if (random.code >= 400 && random.code < 500) return { status: "unknown", reason: `the address was accepted but the catch-all test was deferred: ${said(random)}`, smtp: "greylisted", tls };
  return { status: "deliverable", reason: "the mail server accepted the address and rejects unknown ones", smtp: "accepted", tls };
}
