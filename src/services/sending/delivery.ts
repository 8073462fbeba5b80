import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { conflict } from "../../core/errors.js";
import { sharedMessageSigner, type MessageSigner } from "../../providers/smtp/signing-threads.js";
import { RelayError, type Relay } from "../../providers/smtp/relay.js";
import { DeliveriesRepo } from "../../store/deliveries.js";
import type { BrandService } from "./brand.js";
import type { OutgoingMessages } from "./outgoing-message.js";
import { retryDelayMs, RETRY_WINDOW_MS } from "./delivery-policy.js";
import type { SendingDomainService } from "./sending-domains.js";
import { addPass, emptyPass, type PassResult } from "./delivery-pass.js";
import { DeliveryPassCache } from "./delivery-pass-cache.js";
import { prepareMessage, type DeliveryHooks, type PreparedMessage } from "./delivery-message.js";
import { DeliveryClaims, type Claimed, type DeliveryClaimsDeps } from "./delivery-claims.js";
import { TurnWrites } from "./delivery-writes.js";
import type { SequenceSteps } from "./sequence-steps.js";
import { processAlive } from "../heartbeat-lock.js";

export type { DeliveryHooks, PassResult };

/** What the claim needs (`DeliveryClaimsDeps`), and the rest of the loop's. */
export interface DeliveryServiceDeps extends DeliveryClaimsDeps {
  brand: BrandService;
  sendingDomains: SendingDomainService;
  messages: OutgoingMessages;
  /** Creates step n+1 when step n is recorded as sent (in that transaction). */
  sequences: SequenceSteps;
  relay: Relay;
  log: (line: string) => void;
  /** Whether a process of this host is running (default: signal 0). Tests pretend a crash. */
  processAlive?: (pid: number) => boolean;
  pid?: number;
  hooks?: DeliveryHooks;
  /** Messages claimed at once: a pass of `runOnce`, each refill of the loops (default: 8 per relay connection). */
  batchSize?: number;
  /** Messages in hand at once, composed, signed or on the wire (default: twice the relay's connections). */
  concurrency?: number;
  /** Composes and signs messages (default: the process's shared signing threads, used from the first pass until the lock is let go). */
  signer?: MessageSigner;
}

/** A lock whose holder has not written a heartbeat for this long is taken over. */
const LOCK_STALE_MS = 60_000;
const HEARTBEAT_MS = 5_000;

const UNCONFIRMED_NOTE =
  "unconfirmed: the delivery stopped after the message was handed to the relay and before its answer was recorded; it may have been delivered, and is not sent again";

/**
 * The delivery loop (docs/architecture.md, "Delivery"): one per data directory (a lock in
 * the database), it claims due executions within the throttles, renders, signs and hands
 * each to the relay, and records the answer. The state machine makes a crash at any
 * moment cost neither a duplicate nor a silent loss: see `recover` and `markSending`.
 */
export class DeliveryService {
  readonly workerId = `dlv_${randomBytes(8).toString("hex")}`;
  private readonly repo: DeliveriesRepo;
  private readonly claims: DeliveryClaims;
  /** `sending` marks and answers, one transaction per turn of the event loop. */
  private readonly writes: TurnWrites;
  /** This loop's use of the shared signing threads while it delivers; let go with `closeSigner`. */
  private ownSigner?: MessageSigner;
  private holding = false;
  private lastHeartbeat = 0;
  private readonly pid: number;
  private readonly alive: (pid: number) => boolean;

  constructor(private readonly deps: DeliveryServiceDeps) {
    this.repo = new DeliveriesRepo(deps.db);
    this.claims = new DeliveryClaims(deps, this.repo, this.workerId);
    this.writes = new TurnWrites(deps.db);
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

  /**
   * One pass: claim a batch of what is due within the throttles, deliver it, record the
   * answers. With `refill` (the loops of `serve` and `deliver --until-empty`) the next batch
   * is claimed, rendered and handed to the signer while the last one's messages are still
   * on their way, so the relay's connections never wait at a batch's end for a claim and a
   * whole batch's signing (bench/delivery-speed.js: that wait cost a third of the rate);
   * the pass ends when a claim finds less than a batch due, or `signal` aborts.
   */
  async pass(options: { refill?: boolean; signal?: AbortSignal } = {}): Promise<PassResult> {
    if (!this.holding) throw new Error("pass() without the delivery lock: call acquire() first");
    const result = emptyPass();
    const batch = this.deps.batchSize ?? 12;
    const concurrency = this.deps.concurrency ?? 3;
    // Claimed and not yet started: below this, the next batch is claimed.
    const lowWater = Math.max(concurrency, Math.ceil(batch / 2));
    const line: Array<{ claimed: Claimed; prepared: Promise<PreparedMessage | { error: string }> }> = [];
    let claiming = true;
    let stopped: { error: unknown } | undefined;
    const claim = () => {
      this.heartbeat();
      // Read afresh per batch: an edit or a key rotation counts from the next batch.
      const cache = new DeliveryPassCache(this.deps);
      const claimed = this.claims.claimDue(batch, result, cache);
      result.claimed += claimed.length;
      // The batch rendered and handed to the signer in one turn of the event loop: the
      // signing threads get it in a few hand-overs instead of one per message.
      const context = { messages: this.deps.messages, sequences: this.deps.sequences, signer: this.signer(), cache, now: () => this.now() };
      for (const c of claimed) line.push({ claimed: c, prepared: prepareMessage(context, c) });
      if (!options.refill || claimed.length < batch) claiming = false;
    };
    claim();
    const worker = async () => {
      for (;;) {
        // After an abort (serve stopping) what is claimed still goes out, and nothing more is claimed.
        // A failure (the lock lost, the database failing) ends the claims; what is claimed
        // still goes on, so nothing stays claimed by this loop, then the pass fails with it.
        try {
          if (claiming && !options.signal?.aborted && line.length <= lowWater) claim();
        } catch (error) {
          claiming = false;
          stopped ??= { error };
        }
        const next = line.shift();
        if (!next) return;
        try {
          await this.deliver(next.claimed, next.prepared, result);
        } catch (error) {
          claiming = false;
          stopped ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: claiming ? concurrency : Math.min(concurrency, line.length) }, worker));
    if (stopped) throw stopped.error;
    return result;
  }

  /** The signer of this loop: the injected one, or the process's shared signing threads. */
  private signer(): MessageSigner {
    return this.deps.signer ?? (this.ownSigner ??= sharedMessageSigner());
  }

  /** Lets go of the shared signing threads (an injected signer is its owner's to close). */
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
      await this.record(due.campaign_id, (stamp) => this.repo.failClaimed(id, this.workerId, reason, stamp));
      this.deps.log(`${label}: failed: ${reason}`);
      result.failed++;
      return;
    }
    const { raw, messageId, envelope } = ready;

    let answer: { response: string } | RelayError;
    try {
      answer = await this.deps.relay.send(envelope, raw, () => {
        hooks.beforeRecordSending?.(id);
        // Committed before the `.`: the relay waits for this promise (RFC 5321 §4.1.1.4 keeps
        // an unfinished DATA undelivered, so a crash before the commit costs nothing).
        return this.writes
          .run(() => this.repo.markSending(id, this.workerId, this.now().toISOString()))
          .then((recorded) => {
            if (recorded) hooks.afterRecordSending?.(id);
            return recorded;
          });
      });
    } catch (err) {
      if (!(err instanceof RelayError)) throw err;
      answer = err;
    }
    hooks.afterRelayAnswer?.(id);
    const now = this.now();
    const stamp = now.toISOString();
    if (!(answer instanceof RelayError)) {
      await this.record(due.campaign_id, () => this.repo.recordSent(id, this.workerId, messageId, null, 0, stamp) && this.deps.sequences.afterSent(id, stamp));
      hooks.afterRecordSent?.(id);
      this.deps.log(`${label}: sent (${answer.response})`);
      result.sent++;
    } else if (answer.kind === "cancelled") {
      await this.record(due.campaign_id, () => undefined);
      this.deps.log(`${label}: not sent, the execution was cancelled or skipped meanwhile`);
    } else if (answer.unanswered) {
      await this.record(due.campaign_id, () => this.repo.recordSent(id, this.workerId, messageId, `${UNCONFIRMED_NOTE} (${answer.message})`, 1, stamp));
      this.deps.log(`${label}: no answer after the message was handed over (${answer.message}): recorded as sent, unconfirmed`);
      result.unconfirmed++;
    } else if (answer.kind === "permanent") {
      await this.record(due.campaign_id, () => this.repo.failClaimed(id, this.workerId, `the relay refused it: ${answer.message}`, stamp));
      this.deps.log(`${label}: failed: ${answer.message}`);
      result.failed++;
    } else {
      const giveUpAt = new Date(item.firstAttemptAt).getTime() + RETRY_WINDOW_MS;
      if (now.getTime() >= giveUpAt) {
        await this.record(due.campaign_id, () => this.repo.failClaimed(id, this.workerId, `gave up after 24 h of temporary failures; last: ${answer.message}`, stamp));
        this.deps.log(`${label}: failed after 24 h of temporary failures: ${answer.message}`);
        result.failed++;
      } else {
        const at = new Date(Math.min(now.getTime() + retryDelayMs(item.attempt), giveUpAt)).toISOString();
        await this.record(due.campaign_id, () => this.repo.retryLater(id, this.workerId, at, `temporary failure, retrying at ${at}: ${answer.message}`, stamp));
        this.deps.log(`${label}: temporary failure (${answer.message}); next attempt at ${at}`);
        result.retried++;
      }
    }
  }

  /**
   * Record an execution's outcome and, in the same transaction, mark its campaign sent
   * when nothing of it is left open: no moment at which the last message is recorded but
   * its campaign is not. The transaction is the turn's (`TurnWrites`): a crash before its
   * commit leaves the execution `sending`, recovered as sent and unconfirmed, as a crash
   * just before a commit of its own would.
   */
  private record(campaignId: string, outcome: (stamp: string) => unknown): Promise<void> {
    return this.writes.run(() => {
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
        const pass = await this.pass({ refill: true, signal });
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
          pass = await this.pass({ refill: true, signal });
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
