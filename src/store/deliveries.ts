import type { ContactRow } from "./contacts.js";
import { StatementCache, type Db } from "./db.js";
import { ProcessLockRows, type ProcessLockRow } from "./process-locks.js";

/** A pending execution that is due, with what the delivery loop decides on. */
export interface DueExecution {
  id: string;
  campaign_id: string;
  team_id: string;
  contact_id: string;
  attempts: number;
  first_attempt_at: string | null;
  step: number;
  campaign_type: "one-time" | "lifetime";
  campaign_status: string;
  sending_domain_id: string | null;
  /** The campaign's send window (JSON), or null. */
  send_window: string | null;
}

export type DeliveryLockRow = ProcessLockRow;

export interface AttemptRow {
  execution_id: string;
  team_id: string;
  sending_domain_id: string;
  recipient_domain_key: string;
  at: string;
}

/** Count and oldest time of the attempts in a window. */
export interface WindowCount {
  n: number;
  oldest: string | null;
}

/**
 * The delivery state machine's SQL (docs/architecture.md, "Delivery"). Every status change
 * is a guarded UPDATE on the status it leaves (and, once claimed, on the claiming worker),
 * so a pause, an unsubscribe or another worker's recovery in between turns it into a no-op
 * the caller sees (false) instead of an overwrite.
 */
export class DeliveriesRepo {
  private readonly lock: ProcessLockRows;
  /** Kept prepared: a delivery runs several of these per message. */
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.lock = new ProcessLockRows(db, "delivery_lock");
    this.statements = new StatementCache(db);
  }

  due(now: string, limit: number): DueExecution[] {
    return this.statements
      .get(
        `SELECT e.id, e.campaign_id, e.team_id, e.contact_id, e.attempts, e.first_attempt_at, e.step,
                c.type AS campaign_type, c.status AS campaign_status, c.sending_domain_id, c.send_window
         FROM campaign_executions e JOIN campaigns c ON c.id = e.campaign_id
         WHERE e.status = 'pending' AND e.not_before <= ? ORDER BY e.not_before, e.id LIMIT ?`,
      )
      .all(now, limit) as DueExecution[];
  }

  contact(teamId: string, id: string): ContactRow | undefined {
    return this.statements.get("SELECT * FROM contacts WHERE id = ? AND team_id = ?").get(id, teamId) as ContactRow | undefined;
  }

  /** Wait: `throttled` 1 when a per-minute throttle pushed it (due now, in line), 0 otherwise. */
  defer(id: string, notBefore: string, reason: string | null, throttled: 0 | 1, now: string): void {
    this.statements
      .get("UPDATE campaign_executions SET not_before = ?, error = ?, throttled = ?, updated_at = ? WHERE id = ? AND status = 'pending'")
      .run(notBefore, reason, throttled, now, id);
  }

  /** An execution that will not be sent because of its contact. */
  skip(id: string, reason: string, now: string): boolean {
    return (
      this.statements
        .get("UPDATE campaign_executions SET status = 'skipped', error = ?, claimed_by = NULL, updated_at = ? WHERE id = ? AND status IN ('pending', 'queued')")
        .run(reason, now, id).changes === 1
    );
  }

  cancel(id: string, now: string): void {
    this.statements.get("UPDATE campaign_executions SET status = 'cancelled', updated_at = ? WHERE id = ? AND status = 'pending'").run(now, id);
  }

  failPending(id: string, error: string, now: string): void {
    this.statements.get("UPDATE campaign_executions SET status = 'failed', error = ?, updated_at = ? WHERE id = ? AND status = 'pending'").run(error, now, id);
  }

  /** pending → queued, for this worker: the relay cannot have it yet (no DATA has started). */
  claim(id: string, worker: string, now: string): boolean {
    return (
      this.statements
        .get(
          `UPDATE campaign_executions SET status = 'queued', claimed_by = ?, attempts = attempts + 1,
             first_attempt_at = COALESCE(first_attempt_at, ?), throttled = 0, error = NULL, updated_at = ?
           WHERE id = ? AND status = 'pending'`,
        )
        .run(worker, now, now, id).changes === 1
    );
  }

  /**
   * queued → sending, just before the final `.` of DATA: from here on the relay may have
   * the message. False when it is no longer this worker's queued execution (cancelled by
   * a pause, skipped by an unsubscribe): then the `.` must not be sent.
   */
  markSending(id: string, worker: string, now: string): boolean {
    return (
      this.statements
        .get("UPDATE campaign_executions SET status = 'sending', updated_at = ? WHERE id = ? AND status = 'queued' AND claimed_by = ?")
        .run(now, id, worker).changes === 1
    );
  }

  /** sending → sent (the relay's 250, or `unconfirmed` when no answer came). */
  recordSent(id: string, worker: string, messageId: string, note: string | null, unconfirmed: 0 | 1, now: string): boolean {
    return (
      this.statements
        .get(
          `UPDATE campaign_executions SET status = 'sent', message_id = ?, sent_at = ?, error = ?, unconfirmed = ?, claimed_by = NULL, updated_at = ?
           WHERE id = ? AND status = 'sending' AND claimed_by = ?`,
        )
        .run(messageId, now, note, unconfirmed, now, id, worker).changes === 1
    );
  }

  /** queued or sending → pending again at `notBefore` (the relay did not take it). */
  retryLater(id: string, worker: string, notBefore: string, error: string, now: string): boolean {
    return (
      this.statements
        .get(
          `UPDATE campaign_executions SET status = 'pending', not_before = ?, error = ?, claimed_by = NULL, updated_at = ?
           WHERE id = ? AND status IN ('queued', 'sending') AND claimed_by = ?`,
        )
        .run(notBefore, error, now, id, worker).changes === 1
    );
  }

  /** queued or sending → failed, with the relay's answer or our reason. */
  failClaimed(id: string, worker: string, error: string, now: string): boolean {
    return (
      this.statements
        .get(
          `UPDATE campaign_executions SET status = 'failed', error = ?, claimed_by = NULL, updated_at = ?
           WHERE id = ? AND status IN ('queued', 'sending') AND claimed_by = ?`,
        )
        .run(error, now, id, worker).changes === 1
    );
  }

  /**
   * After a crash (the lock's holder is gone, so every claimed row is an orphan): a
   * `queued` row never had its final `.` sent, so the relay cannot have it: pending again,
   * due now. A `sending` row may have been accepted: it is recorded as sent, unconfirmed,
   * and never sent again. Returns the campaigns touched.
   */
  recoverOrphans(now: string, note: string): { requeued: number; unconfirmed: number; campaigns: string[] } {
    const campaigns = this.db
      .prepare("SELECT DISTINCT campaign_id FROM campaign_executions WHERE status IN ('queued', 'sending')")
      .pluck()
      .all() as string[];
    const requeued = this.statements
      .get("UPDATE campaign_executions SET status = 'pending', not_before = ?, claimed_by = NULL, updated_at = ? WHERE status = 'queued'")
      .run(now, now).changes;
    const unconfirmed = this.statements
      .get(
        `UPDATE campaign_executions SET status = 'sent', sent_at = ?, unconfirmed = 1, error = ?, claimed_by = NULL, updated_at = ?,
           message_id = COALESCE(message_id, '<' || id || '@' || COALESCE((SELECT d.domain FROM campaigns c JOIN sending_domains d ON d.id = c.sending_domain_id WHERE c.id = campaign_id), 'unknown') || '>')
         WHERE status = 'sending'`,
      )
      .run(now, note, now).changes;
    return { requeued, unconfirmed, campaigns };
  }

  recordAttempt(row: AttemptRow): void {
    this.statements
      .get("INSERT INTO delivery_attempts (execution_id, team_id, sending_domain_id, recipient_domain_key, at) VALUES (@execution_id, @team_id, @sending_domain_id, @recipient_domain_key, @at)")
      .run(row);
  }

  attemptsFromDomain(sendingDomainId: string, since: string): WindowCount {
    return this.statements.get("SELECT count(*) AS n, min(at) AS oldest FROM delivery_attempts WHERE sending_domain_id = ? AND at > ?").get(sendingDomainId, since) as WindowCount;
  }

  attemptsToRecipientDomain(sendingDomainId: string, recipientKey: string, since: string): WindowCount {
    return this.statements
      .get("SELECT count(*) AS n, min(at) AS oldest FROM delivery_attempts WHERE sending_domain_id = ? AND recipient_domain_key = ? AND at > ?")
      .get(sendingDomainId, recipientKey, since) as WindowCount;
  }

  attemptsOfTeam(teamId: string, since: string): number {
    return (this.statements.get("SELECT count(*) AS n FROM delivery_attempts WHERE team_id = ? AND at >= ?").get(teamId, since) as { n: number }).n;
  }

  purgeAttempts(before: string): void {
    this.statements.get("DELETE FROM delivery_attempts WHERE at < ?").run(before);
  }

  /** A launched one-time campaign whose time came: scheduled → sending. */
  startScheduled(campaignId: string, now: string): void {
    this.statements.get("UPDATE campaigns SET status = 'sending', updated_at = ? WHERE id = ? AND type = 'one-time' AND status = 'scheduled' AND launched_at IS NOT NULL").run(now, campaignId);
  }

  /** One-time campaigns with no open execution left: sent. */
  completeCampaigns(campaignIds: readonly string[], now: string): void {
    const statement = this.statements.get(
      `UPDATE campaigns SET status = 'sent', sent_at = ?, updated_at = ?
       WHERE id = ? AND type = 'one-time' AND status IN ('scheduled', 'sending') AND launched_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM campaign_executions WHERE campaign_id = campaigns.id AND status IN ('pending', 'queued', 'sending'))`,
    );
    for (const id of new Set(campaignIds)) statement.run(now, now, id);
  }

  /** Pending executions that are due now, or in line behind a per-minute throttle. */
  hasWorkNow(now: string): boolean {
    return this.statements.get("SELECT 1 FROM campaign_executions WHERE status = 'pending' AND (not_before <= ? OR throttled = 1) LIMIT 1").get(now) !== undefined;
  }

  /** The earliest time a pending execution is due. */
  nextDue(): string | undefined {
    return (this.db.prepare("SELECT min(not_before) FROM campaign_executions WHERE status = 'pending'").pluck().get() as string | null) ?? undefined;
  }

  /** Pending executions waiting for a later time (a retry, a schedule, tomorrow's cap), and the next one's time. */
  waiting(now: string): { n: number; next: string | null } {
    return this.statements.get("SELECT count(*) AS n, min(not_before) AS next FROM campaign_executions WHERE status = 'pending' AND not_before > ?").get(now) as {
      n: number;
      next: string | null;
    };
  }

  /** A contact's open executions in every campaign: skipped (it unsubscribed or bounced). */
  skipOpenOfContact(contactId: string, reason: string, now: string): number {
    return this.statements
      .get("UPDATE campaign_executions SET status = 'skipped', error = ?, claimed_by = NULL, updated_at = ? WHERE contact_id = ? AND status IN ('pending', 'queued')")
      .run(reason, now, contactId).changes;
  }

  /** A contact's status, unless it is already `keep` (a bounce is not turned into an unsubscribe). */
  setContactStatus(contactId: string, status: "unsubscribed" | "bounced", keep: readonly string[], now: string): boolean {
    return (
      this.statements
        .get(`UPDATE contacts SET status = ?, updated_at = ? WHERE id = ? AND status NOT IN (${keep.map(() => "?").join(", ")})`)
        .run(status, now, contactId, ...keep).changes === 1
    );
  }

  /** The workspace of a campaign (an unsubscribe token names the campaign, not the workspace). */
  campaignTeam(campaignId: string): string | undefined {
    return (this.db.prepare("SELECT team_id FROM campaigns WHERE id = ?").pluck().get(campaignId) as string | undefined) ?? undefined;
  }

  execution(id: string): { id: string; team_id: string; campaign_id: string; contact_id: string; status: string } | undefined {
    return this.statements.get("SELECT id, team_id, campaign_id, contact_id, status FROM campaign_executions WHERE id = ?").get(id) as
      | { id: string; team_id: string; campaign_id: string; contact_id: string; status: string }
      | undefined;
  }

  /** sent (or sending) → bounced. */
  markBounced(id: string, error: string, now: string): boolean {
    return (
      this.statements
        .get("UPDATE campaign_executions SET status = 'bounced', error = ?, claimed_by = NULL, updated_at = ? WHERE id = ? AND status IN ('sent', 'sending')")
        .run(error, now, id).changes === 1
    );
  }

  recordBounceReport(executionId: string, statusCode: string, permanent: boolean, diagnostic: string | null, now: string): void {
    this.statements
      .get("INSERT INTO bounce_reports (execution_id, status_code, permanent, diagnostic, received_at) VALUES (?, ?, ?, ?, ?)")
      .run(executionId, statusCode, permanent ? 1 : 0, diagnostic, now);
  }

  lockHolder(): DeliveryLockRow | undefined {
    return this.lock.holder();
  }

  takeLock(row: DeliveryLockRow): void {
    this.lock.take(row);
  }

  /** False when another worker took the lock meanwhile. */
  heartbeat(owner: string, now: string): boolean {
    return this.lock.heartbeat(owner, now);
  }

  releaseLock(owner: string): void {
    this.lock.release(owner);
  }
}
