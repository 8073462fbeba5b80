import { SENDABLE_CONTACT_STATUSES } from "../../core/schemas/contact.js";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { nextMidnightUtc, type Clock } from "../../core/clock.js";
import { conflict } from "../../core/errors.js";
import { startMessageSigner, type MessageSigner } from "../../providers/smtp/signing-threads.js";
import { RelayError, type Relay } from "../../providers/smtp/relay.js";
import { DeliveriesRepo, type DueExecution } from "../../store/deliveries.js";
import type { Db } from "../../store/db.js";
import type { BrandService } from "./brand.js";
import type { ServerConfig } from "../config.js";
import type { ContactService } from "../contacts/contacts.js";
import type { OutgoingMessages } from "./outgoing-message.js";
import type { PlanService } from "../access/plans.js";
import { recipientDomainKey, retryDelayMs, RETRY_WINDOW_MS } from "./delivery-policy.js";
import type { SendingDomainService } from "./sending-domains.js";
import type { SuppressionList } from "../contacts/suppressions.js";
import type { Keyring } from "../../core/crypto.js";
import { addPass, emptyPass, type PassResult } from "./delivery-pass.js";
import { DeliveryPassCache } from "./delivery-pass-cache.js";
import { prepareMessage, type DeliveryHooks, type PreparedMessage } from "./delivery-message.js";
import { sendWindowOf } from "./campaign-sequence.js";
import { sendWindowWait } from "./send-window-gate.js";
import type { SequenceSteps } from "./sequence-steps.js";
import { processAlive } from "../heartbeat-lock.js";

export type { DeliveryHooks, PassResult };

export interface DeliveryServiceDeps {
  db: Db;
  clock: Clock;
  config: Pick<ServerConfig, "sendPerMinute" | "sendPerRecipientDomainPerMinute">;
  keys: { get(): Keyring };
  contacts: ContactService;
  brand: BrandService;
  plans: PlanService;
  sendingDomains: SendingDomainService;
  suppressions: SuppressionList;
  messages: OutgoingMessages;
  /** Creates step n+1 when step n is recorded as sent (in that transaction). */
  sequences: SequenceSteps;
  relay: Relay;
  log: (line: string) => void;
  /** Whether a process of this host is running (default: signal 0). Tests pretend a crash. */
  processAlive?: (pid: number) => boolean;
  pid?: number;
  hooks?: DeliveryHooks;
  /** Messages claimed per pass (default: 8 per relay connection). */
  batchSize?: number;
  /** Messages in hand at once, composed, signed or on the wire (default: twice the relay's connections). */
  concurrency?: number;
  /** Composes and signs messages (default: signing threads, from the first pass until the lock is let go). */
  signer?: MessageSigner;
}

/** A lock whose holder has not written a heartbeat for this long is taken over. */
const LOCK_STALE_MS = 60_000;
const HEARTBEAT_MS = 5_000;
/** A hold (unverified domain, no postal address) is looked at again after this. */
const HOLD_MS = 5 * 60_000;
const MINUTE_MS = 60_000;
/** Attempts are kept this long (the daily cap needs today's, the throttles the last minute's). */
const ATTEMPT_RETENTION_MS = 2 * 24 * 60 * 60_000;
const SCAN_LIMIT = 500;

const UNCONFIRMED_NOTE =
  "unconfirmed: the delivery stopped after the message was handed to the relay and before its answer was recorded; it may have been delivered, and is not sent again";

interface Claimed {
  due: DueExecution;
  sendingDomainId: string;
  attempt: number;
  firstAttemptAt: string;
}

/**
 * The delivery loop (docs/architecture.md, "Delivery"): one per data directory (a lock in
 * the database), it claims due executions within the throttles, renders, signs and hands
 * each to the relay, and records the answer. The state machine makes a crash at any
 * moment cost neither a duplicate nor a silent loss: see `recover` and `markSending`.
 */
export class DeliveryService {
  readonly workerId = `dlv_${randomBytes(8).toString("hex")}`;
  private readonly repo: DeliveriesRepo;
  /** The signing threads while this loop delivers; ended with `closeSigner`. */
  private ownSigner?: MessageSigner;
  private holding = false;
  private lastHeartbeat = 0;
  private lastPurge = 0;
  private readonly pid: number;
  private readonly alive: (pid: number) => boolean;

  constructor(private readonly deps: DeliveryServiceDeps) {
    this.repo = new DeliveriesRepo(deps.db);
    this.pid = deps.pid ?? process.pid;
    this.alive = deps.processAlive ?? processAlive;
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  /**
   * Take the data directory's delivery lock, or say who holds it. A holder is gone when
   * its heartbeat is a minute old or its process no longer runs on this host; taking the
   * lock over recovers what it left claimed, in the same transaction.
   */
  acquire(): { ok: true } | { ok: false; holder: string } {
    const host = hostname();
    return this.deps.db
      .transaction(() => {
        const now = this.now();
        const holder = this.repo.lockHolder();
        if (holder && holder.owner !== this.workerId) {
          const fresh = now.getTime() - new Date(holder.heartbeat_at).getTime() < LOCK_STALE_MS;
          const running = holder.host !== host || this.alive(holder.pid);
          if (fresh && running) return { ok: false as const, holder: `process ${holder.pid} on ${holder.host}` };
        }
        this.repo.takeLock({ owner: this.workerId, pid: this.pid, host, heartbeat_at: now.toISOString() });
        this.holding = true;
        this.lastHeartbeat = now.getTime();
        this.recover(now.toISOString());
        return { ok: true as const };
      })
      .immediate();
  }

  release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.deps.db.transaction(() => this.repo.releaseLock(this.workerId)).immediate();
  }

  /**
   * The recovery rule. Whoever held the lock is gone, so every claimed execution is an
   * orphan: `queued` never had the final `.` of DATA sent (`sending` is recorded before
   * it), so the relay cannot have it and it goes out again; `sending` may have been
   * accepted, so it is recorded as sent and unconfirmed, and never sent twice.
   */
  private recover(now: string): void {
    const result = this.repo.recoverOrphans(now, UNCONFIRMED_NOTE);
    if (result.requeued || result.unconfirmed) {
      this.deps.log(`delivery recovery: ${result.requeued} claimed but unsent execution(s) queued again, ${result.unconfirmed} marked sent (unconfirmed)`);
    }
    this.repo.completeCampaigns(result.campaigns, now);
    // A step recorded as sent by a path that did not create its successor (none should): created now, once.
    const created = this.deps.sequences.sweep(now);
    if (created) this.deps.log(`delivery recovery: ${created} follow-up step(s) created`);
  }

  private heartbeat(): void {
    const now = this.now();
    if (now.getTime() - this.lastHeartbeat < HEARTBEAT_MS) return;
    this.lastHeartbeat = now.getTime();
    const still = this.deps.db.transaction(() => this.repo.heartbeat(this.workerId, now.toISOString())).immediate();
    if (!still) {
      this.holding = false;
      throw conflict("another process took over the delivery lock");
    }
  }

  /** One pass: claim what is due within the throttles, deliver it, record the answers. */
  async pass(): Promise<PassResult> {
    if (!this.holding) throw new Error("pass() without the delivery lock: call acquire() first");
    this.heartbeat();
    const result = emptyPass();
    const cache = new DeliveryPassCache(this.deps);
    const claimed = this.claimDue(result, cache);
    result.claimed = claimed.length;
    // Every claimed message rendered and handed to the signer now, in one turn of the event
    // loop: the signing threads get them as one batch each instead of one hand-over per message.
    const prepared = claimed.map(({ due, sendingDomainId }) => prepareMessage({ ...this.deps, signer: this.signer(), cache, now: () => this.now() }, due, sendingDomainId));
    const concurrency = this.deps.concurrency ?? 3;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const at = next++;
        await this.deliver(claimed[at]!, prepared[at]!, result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return result;
  }

  /**
   * Decide each due execution in one transaction: skip it (contact gone, unsubscribed,
   * bounced, suppressed), hold it (domain not verified, no postal address), defer it
   * (a throttle or the daily cap), or claim it.
   */
  private claimDue(result: PassResult, cache: DeliveryPassCache): Claimed[] {
    const batch = this.deps.batchSize ?? 12;
    return this.deps.db
      .transaction(() => {
        const now = this.now();
        const stamp = now.toISOString();
        const windowStart = new Date(now.getTime() - MINUTE_MS).toISOString();
        const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
        const claimed: Claimed[] = [];
        const touched: string[] = [];
        const capOf = new Map<string, number | null>();
        const { sendPerMinute, sendPerRecipientDomainPerMinute } = this.deps.config;
        const keyring = this.deps.keys.get();
        for (const due of this.repo.due(stamp, SCAN_LIMIT)) {
          if (claimed.length >= batch) break;
          if (due.campaign_type === "lifetime" && due.campaign_status !== "active") {
            this.repo.cancel(due.id, stamp);
            continue;
          }
          const contact = this.repo.contact(due.team_id, due.contact_id);
          if (!contact || !SENDABLE_CONTACT_STATUSES.includes(contact.status)) {
            this.repo.skip(due.id, `the contact is ${contact ? contact.status : "deleted"}`, stamp);
            result.skipped++;
            touched.push(due.campaign_id);
            continue;
          }
          const email = this.deps.contacts.emailOf(contact);
          if (this.deps.suppressions.has(due.team_id, email)) {
            this.repo.skip(due.id, "the address is on the workspace's suppression list (it unsubscribed or bounced before)", stamp);
            result.skipped++;
            touched.push(due.campaign_id);
            continue;
          }
          const wait = sendWindowWait(sendWindowOf(due), contact.time_zone, cache.brand(due.team_id).timeZone, now);
          if (wait) {
            this.repo.defer(due.id, wait.at, wait.reason, 0, stamp);
            continue;
          }
          const domainId = due.sending_domain_id;
          if (!domainId) {
            this.repo.defer(due.id, new Date(now.getTime() + HOLD_MS).toISOString(), "waiting: the campaign has no sending domain", 0, stamp);
            continue;
          }
          const domain = cache.sender(due.team_id, domainId);
          if (!domain || domain.status !== "verified") {
            const why = domain ? `the sending domain ${domain.domain} is ${domain.status}, not verified` : "the campaign's sending domain was removed";
            this.repo.defer(due.id, new Date(now.getTime() + HOLD_MS).toISOString(), `waiting: ${why}`, 0, stamp);
            continue;
          }
          if (!cache.brand(due.team_id).postalAddress?.trim()) {
            this.repo.defer(due.id, new Date(now.getTime() + HOLD_MS).toISOString(), "waiting: the brand settings have no postalAddress (every message carries it)", 0, stamp);
            continue;
          }
          if (!capOf.has(due.team_id)) capOf.set(due.team_id, this.deps.plans.limitsForTeam(due.team_id).dailySends);
          const cap = capOf.get(due.team_id)!;
          if (cap !== null && this.repo.attemptsOfTeam(due.team_id, dayStart) >= cap) {
            this.repo.defer(due.id, nextMidnightUtc(now).toISOString(), `waiting: the plan's daily cap of ${cap} messages is reached; sending resumes at midnight UTC`, 0, stamp);
            continue;
          }
          if (sendPerMinute > 0) {
            const window = this.repo.attemptsFromDomain(domainId, windowStart);
            if (window.n >= sendPerMinute) {
              const at = new Date(new Date(window.oldest!).getTime() + MINUTE_MS).toISOString();
              this.repo.defer(due.id, at, `throttled: ${sendPerMinute} messages a minute from ${domain.domain}`, 1, stamp);
              continue;
            }
          }
          const recipientKey = recipientDomainKey(keyring, email);
          if (sendPerRecipientDomainPerMinute > 0) {
            const window = this.repo.attemptsToRecipientDomain(domainId, recipientKey, windowStart);
            if (window.n >= sendPerRecipientDomainPerMinute) {
              const at = new Date(new Date(window.oldest!).getTime() + MINUTE_MS).toISOString();
              this.repo.defer(due.id, at, `throttled: ${sendPerRecipientDomainPerMinute} messages a minute to one recipient domain`, 1, stamp);
              continue;
            }
          }
          if (!this.repo.claim(due.id, this.workerId, stamp)) continue;
          this.repo.recordAttempt({ execution_id: due.id, team_id: due.team_id, sending_domain_id: domainId, recipient_domain_key: recipientKey, at: stamp });
          if (due.campaign_status === "scheduled") this.repo.startScheduled(due.campaign_id, stamp);
          claimed.push({ due, sendingDomainId: domainId, attempt: due.attempts + 1, firstAttemptAt: due.first_attempt_at ?? stamp });
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

  private write<T>(fn: () => T): T {
    return this.deps.db.transaction(fn).immediate();
  }

  /** The signer of this loop: the injected one, or signing threads started now. */
  private signer(): MessageSigner {
    return this.deps.signer ?? (this.ownSigner ??= startMessageSigner());
  }

  /** Ends the signing threads this loop started (an injected signer is its owner's to close). */
  private async closeSigner(): Promise<void> {
    const signer = this.ownSigner;
    this.ownSigner = undefined;
    await signer?.close();
  }

  private async deliver(item: Claimed, prepared: Promise<PreparedMessage | { error: string }>, result: PassResult): Promise<void> {
    const { due } = item;
    const id = due.id;
    const hooks = this.deps.hooks ?? {};
    const label = `delivery ${id} (campaign ${due.campaign_id}) attempt ${item.attempt}`;
    hooks.afterClaim?.(id);
    const ready = await prepared;
    if ("error" in ready) {
      const reason = `the message could not be built: ${ready.error}`;
      this.record(due.campaign_id, (stamp) => this.repo.failClaimed(id, this.workerId, reason, stamp));
      this.deps.log(`${label}: failed: ${reason}`);
      result.failed++;
      return;
    }
    const { raw, messageId, envelope } = ready;

    let answer: { response: string } | RelayError;
    try {
      answer = await this.deps.relay.send(envelope, raw, () => {
        hooks.beforeRecordSending?.(id);
        const recorded = this.write(() => this.repo.markSending(id, this.workerId, this.now().toISOString()));
        if (recorded) hooks.afterRecordSending?.(id);
        return recorded;
      });
    } catch (err) {
      if (!(err instanceof RelayError)) throw err;
      answer = err;
    }
    hooks.afterRelayAnswer?.(id);
    const now = this.now();
    const stamp = now.toISOString();
    if (!(answer instanceof RelayError)) {
      this.record(due.campaign_id, () => this.repo.recordSent(id, this.workerId, messageId, null, 0, stamp) && this.deps.sequences.afterSent(id, stamp));
      hooks.afterRecordSent?.(id);
      this.deps.log(`${label}: sent (${answer.response})`);
      result.sent++;
    } else if (answer.kind === "cancelled") {
      this.record(due.campaign_id, () => undefined);
      this.deps.log(`${label}: not sent, the execution was cancelled or skipped meanwhile`);
    } else if (answer.unanswered) {
      this.record(due.campaign_id, () => this.repo.recordSent(id, this.workerId, messageId, `${UNCONFIRMED_NOTE} (${answer.message})`, 1, stamp));
      this.deps.log(`${label}: no answer after the message was handed over (${answer.message}): recorded as sent, unconfirmed`);
      result.unconfirmed++;
    } else if (answer.kind === "permanent") {
      this.record(due.campaign_id, () => this.repo.failClaimed(id, this.workerId, `the relay refused it: ${answer.message}`, stamp));
      this.deps.log(`${label}: failed: ${answer.message}`);
      result.failed++;
    } else {
      const giveUpAt = new Date(item.firstAttemptAt).getTime() + RETRY_WINDOW_MS;
      if (now.getTime() >= giveUpAt) {
        this.record(due.campaign_id, () => this.repo.failClaimed(id, this.workerId, `gave up after 24 h of temporary failures; last: ${answer.message}`, stamp));
        this.deps.log(`${label}: failed after 24 h of temporary failures: ${answer.message}`);
        result.failed++;
      } else {
        const at = new Date(Math.min(now.getTime() + retryDelayMs(item.attempt), giveUpAt)).toISOString();
        this.record(due.campaign_id, () => this.repo.retryLater(id, this.workerId, at, `temporary failure, retrying at ${at}: ${answer.message}`, stamp));
        this.deps.log(`${label}: temporary failure (${answer.message}); next attempt at ${at}`);
        result.retried++;
      }
    }
  }

  /**
   * Record an execution's outcome and, in the same transaction, mark its campaign sent
   * when nothing of it is left open: one write per message, and no moment at which the
   * last message is recorded but its campaign is not.
   */
  private record(campaignId: string, outcome: (stamp: string) => unknown): void {
    this.write(() => {
      const stamp = this.now().toISOString();
      outcome(stamp);
      this.repo.completeCampaigns([campaignId], stamp);
    });
  }

  /**
   * `outreach deliver --until-empty`: passes until nothing is due now, waiting out the
   * per-minute throttles; retries and schedules later than now stay for a later run.
   */
  async runUntilEmpty(signal?: AbortSignal): Promise<PassResult & { waiting: number; nextAt: string | null }> {
    return this.withLock(async (total) => {
      while (!signal?.aborted) {
        const pass = await this.pass();
        addPass(total, pass);
        if (pass.claimed > 0) continue;
        const now = this.now();
        if (!this.repo.hasWorkNow(now.toISOString())) break;
        await this.deps.clock.sleep(this.waitMs(now), signal);
      }
    });
  }

  /** `outreach deliver` without `--until-empty`: one pass. */
  async runOnce(): Promise<PassResult & { waiting: number; nextAt: string | null }> {
    return this.withLock(async (total) => addPass(total, await this.pass()));
  }

  /** Run `work` holding the lock (a 409 naming the holder otherwise); then what still waits. */
  private async withLock(work: (total: PassResult) => Promise<void>): Promise<PassResult & { waiting: number; nextAt: string | null }> {
    const acquired = this.acquire();
    if (!acquired.ok) throw conflict(`delivery already runs in ${acquired.holder}`);
    const total = emptyPass();
    try {
      await work(total);
    } finally {
      this.release();
      await this.closeSigner();
    }
    const waiting = this.repo.waiting(this.now().toISOString());
    return { ...total, waiting: waiting.n, nextAt: waiting.next };
  }

  /** How long to sleep before the next pass: until the next due time, at least 100 ms, at most `max`. */
  private waitMs(now: Date, max = 5_000): number {
    const next = this.repo.nextDue();
    const until = next ? new Date(next).getTime() - now.getTime() : max;
    return Math.min(max, Math.max(100, until));
  }

  /** `outreach serve`'s loop: until `signal` aborts; waits for the lock while another process holds it. */
  async run(signal: AbortSignal): Promise<void> {
    let toldHolder = "";
    try {
      while (!signal.aborted) {
        if (!this.holding) {
          const got = this.acquire();
          if (!got.ok) {
            if (toldHolder !== got.holder) this.deps.log(`delivery waits: ${got.holder} is delivering from this data directory`);
            toldHolder = got.holder;
            await this.deps.clock.sleep(10_000, signal).catch(() => {});
            continue;
          }
          this.deps.log("delivery started");
        }
        let pass: PassResult;
        try {
          pass = await this.pass();
        } catch (err) {
          this.deps.log(`delivery pass failed: ${err instanceof Error ? err.message : String(err)}`);
          await this.deps.clock.sleep(5_000, signal).catch(() => {});
          continue;
        }
        if (pass.claimed > 0) continue;
        await this.deps.clock.sleep(this.waitMs(this.now(), 2_000), signal).catch(() => {});
      }
    } finally {
      this.release();
      await this.closeSigner();
    }
  }
}
