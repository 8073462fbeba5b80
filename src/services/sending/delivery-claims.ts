import { SENDABLE_CONTACT_STATUSES, type Contact } from "../../core/schemas/contact.js";
import { nextMidnightUtc, type Clock } from "../../core/clock.js";
import type { Keyring } from "../../core/crypto.js";
import type { DeliveriesRepo, DueExecution } from "../../store/deliveries.js";
import type { Db } from "../../store/db.js";
import type { ServerConfig } from "../config.js";
import type { ContactService } from "../contacts/contacts.js";
import type { SuppressionList } from "../contacts/suppressions.js";
import type { PlanService } from "../access/plans.js";
import { recipientDomainKey } from "./delivery-policy.js";
import type { DeliveryPassCache } from "./delivery-pass-cache.js";
import type { PassResult } from "./delivery-pass.js";
import { sendWindowOf } from "./campaign-sequence.js";
import { sendWindowWait } from "./send-window-gate.js";

/** A due execution this loop claimed (`pending → queued`), with its contact decrypted once. */
export interface Claimed {
  due: DueExecution;
  sendingDomainId: string;
  attempt: number;
  firstAttemptAt: string;
  contact: Contact;
}

export interface DeliveryClaimsDeps {
  db: Db;
  clock: Clock;
  config: Pick<ServerConfig, "sendPerMinute" | "sendPerRecipientDomainPerMinute">;
  keys: { get(): Keyring };
  contacts: ContactService;
  plans: PlanService;
  suppressions: SuppressionList;
}

/** A hold (unverified domain, no postal address) is looked at again after this. */
const HOLD_MS = 5 * 60_000;
const MINUTE_MS = 60_000;
/** Attempts are kept this long (the daily cap needs today's, the throttles the last minute's). */
const ATTEMPT_RETENTION_MS = 2 * 24 * 60 * 60_000;
/** Due executions looked at per claim at most (skipped, held and deferred ones included). */
const SCAN_LIMIT = 500;
/** Read beyond what is still to claim, for the few a page skips or defers. */
const PAGE_SLACK = 8;

/**
 * The claim of the delivery loop: decides each due execution in one transaction (skip it,
 * hold it, defer it, or claim it). Every decision moves the execution out of the due set
 * (another status, or a later `not_before`), so the due rows are read a page at a time,
 * about as many as are still to claim, instead of a fixed 500 per claim.
 */
export class DeliveryClaims {
  private lastPurge = 0;

  constructor(
    private readonly deps: DeliveryClaimsDeps,
    private readonly repo: DeliveriesRepo,
    private readonly workerId: string,
  ) {}

  /** Claims up to `batch` due executions; what it skipped is counted in `result`. */
  claimDue(batch: number, result: PassResult, cache: DeliveryPassCache): Claimed[] {
    return this.deps.db
      .transaction(() => {
        const now = this.deps.clock.now();
        const stamp = now.toISOString();
        const claimed: Claimed[] = [];
        const touched: string[] = [];
        const window = { start: new Date(now.getTime() - MINUTE_MS).toISOString(), dayStart: dayStartOf(now), capOf: new Map<string, number | null>(), keyring: this.deps.keys.get() };
        let scanned = 0;
        while (claimed.length < batch && scanned < SCAN_LIMIT) {
          const page = this.repo.due(stamp, Math.min(SCAN_LIMIT - scanned, batch - claimed.length + PAGE_SLACK));
          for (const due of page) {
            if (claimed.length >= batch) break;
            scanned++;
            const decided = this.decide(due, now, stamp, window, cache);
            if (decided === "skipped") {
              result.skipped++;
              touched.push(due.campaign_id);
            } else if (decided !== "left") {
              claimed.push(decided);
            }
          }
          if (page.length === 0) break;
        }
        this.repo.completeCampaigns(touched, stamp);
        if (now.getTime() - this.lastPurge > 60 * MINUTE_MS) {
          this.lastPurge = now.getTime();
          this.repo.purgeAttempts(new Date(now.getTime() - ATTEMPT_RETENTION_MS).toISOString());
        }
        return claimed;
      })
      .immediate();
  }

  /** One due execution: claimed, skipped (its contact), or left (cancelled, held, deferred: another `not_before`). */
  private decide(
    due: DueExecution,
    now: Date,
    stamp: string,
    window: { start: string; dayStart: string; capOf: Map<string, number | null>; keyring: Keyring },
    cache: DeliveryPassCache,
  ): Claimed | "skipped" | "left" {
    const later = (ms: number) => new Date(now.getTime() + ms).toISOString();
    if (due.campaign_type === "lifetime" && due.campaign_status !== "active") {
      this.repo.cancel(due.id, stamp);
      return "left";
    }
    const row = this.repo.contact(due.team_id, due.contact_id);
    if (!row || !SENDABLE_CONTACT_STATUSES.includes(row.status)) {
      this.repo.skip(due.id, `the contact is ${row ? row.status : "deleted"}`, stamp);
      return "skipped";
    }
    // Decrypted here once: the message is rendered from this same contact.
    const contact = this.deps.contacts.open(row);
    if (this.deps.suppressions.has(due.team_id, contact.email)) {
      this.repo.skip(due.id, "the address is on the workspace's suppression list (it unsubscribed or bounced before)", stamp);
      return "skipped";
    }
    const wait = sendWindowWait(sendWindowOf(due), contact.timeZone, cache.brand(due.team_id).timeZone, now);
    if (wait) {
      this.repo.defer(due.id, wait.at, wait.reason, 0, stamp);
      return "left";
    }
    const domainId = due.sending_domain_id;
    if (!domainId) {
      this.repo.defer(due.id, later(HOLD_MS), "waiting: the campaign has no sending domain", 0, stamp);
      return "left";
    }
    const domain = cache.sender(due.team_id, domainId);
    if (!domain || domain.status !== "verified") {
      const why = domain ? `the sending domain ${domain.domain} is ${domain.status}, not verified` : "the campaign's sending domain was removed";
      this.repo.defer(due.id, later(HOLD_MS), `waiting: ${why}`, 0, stamp);
      return "left";
    }
    if (!cache.brand(due.team_id).postalAddress?.trim()) {
      this.repo.defer(due.id, later(HOLD_MS), "waiting: the brand settings have no postalAddress (every message carries it)", 0, stamp);
      return "left";
    }
    if (!window.capOf.has(due.team_id)) window.capOf.set(due.team_id, this.deps.plans.limitsForTeam(due.team_id).dailySends);
    const cap = window.capOf.get(due.team_id)!;
    if (cap !== null && this.repo.attemptsOfTeam(due.team_id, window.dayStart) >= cap) {
      this.repo.defer(due.id, nextMidnightUtc(now).toISOString(), `waiting: the plan's daily cap of ${cap} messages is reached; sending resumes at midnight UTC`, 0, stamp);
      return "left";
    }
    const { sendPerMinute, sendPerRecipientDomainPerMinute } = this.deps.config;
    if (sendPerMinute > 0) {
      const sent = this.repo.attemptsFromDomain(domainId, window.start);
      if (sent.n >= sendPerMinute) {
        this.repo.defer(due.id, minuteAfter(sent.oldest!), `throttled: ${sendPerMinute} messages a minute from ${domain.domain}`, 1, stamp);
        return "left";
      }
    }
    const recipientKey = recipientDomainKey(window.keyring, contact.email);
    if (sendPerRecipientDomainPerMinute > 0) {
      const sent = this.repo.attemptsToRecipientDomain(domainId, recipientKey, window.start);
      if (sent.n >= sendPerRecipientDomainPerMinute) {
        this.repo.defer(due.id, minuteAfter(sent.oldest!), `throttled: ${sendPerRecipientDomainPerMinute} messages a minute to one recipient domain`, 1, stamp);
        return "left";
      }
    }
    if (!this.repo.claim(due.id, this.workerId, stamp)) return "left";
    this.repo.recordAttempt({ execution_id: due.id, team_id: due.team_id, sending_domain_id: domainId, recipient_domain_key: recipientKey, at: stamp });
    if (due.campaign_status === "scheduled") this.repo.startScheduled(due.campaign_id, stamp);
    return { due, sendingDomainId: domainId, attempt: due.attempts + 1, firstAttemptAt: due.first_attempt_at ?? stamp, contact };
  }
}

function dayStartOf(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
}

function minuteAfter(at: string): string {
  return new Date(new Date(at).getTime() + MINUTE_MS).toISOString();
}
