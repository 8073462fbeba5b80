import { SENDABLE_CONTACT_STATUSES } from "../core/schemas/contact.js";
import type { CampaignRow, ExecutionRow } from "./campaigns.js";
import { StatementCache, type Db } from "./db.js";

/** What deciding on the next step of a sent execution needs, in one read. */
interface SentStep {
  id: string;
  campaign_id: string;
  team_id: string;
  contact_id: string;
  step: number;
  status: string;
  sent_at: string | null;
  unconfirmed: number;
  follow_ups: string;
  campaign_type: "one-time" | "lifetime";
  campaign_status: string;
  contact_status: string | null;
  stopped: number;
}

/** A step just created: its id, due time and whose it is. */
export interface NextStep {
  id: string;
  due: string;
  campaignId: string;
  contactId: string;
  teamId: string;
}

/** Campaign statuses in which a new step may be created. */
const RUNNING = { "one-time": ["scheduled", "sending", "sent"], lifetime: ["active"] } as const;

/**
 * The steps of a sequence (docs/architecture.md, "Sequences"): step n+1 is created from
 * step n once it is `sent` (confirmed), due `delay` after its `sentAt`. It is created in
 * the transaction that records the `sent`, and a sweep (after a recovery, a resume, a
 * confirm) creates any that a path left out; (campaign, contact, step) is unique and the
 * insert does nothing on a conflict, so both together create each step exactly once.
 */
export class SequenceStepsRepo {
  /** Kept prepared: the delivery loop reads a sent step once per message it records. */
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  private sentStep(executionId: string): SentStep | undefined {
    return this.statements
      .get(
        `SELECT e.id, e.campaign_id, e.team_id, e.contact_id, e.step, e.status, e.sent_at, e.unconfirmed,
                c.follow_ups, c.type AS campaign_type, c.status AS campaign_status, ct.status AS contact_status,
                EXISTS (SELECT 1 FROM sequence_stops s WHERE s.campaign_id = e.campaign_id AND s.contact_id = e.contact_id) AS stopped
         FROM campaign_executions e JOIN campaigns c ON c.id = e.campaign_id LEFT JOIN contacts ct ON ct.id = e.contact_id
         WHERE e.id = ?`,
      )
      .get(executionId) as SentStep | undefined;
  }

  /**
   * Create the step after `executionId`, if there is one and it may go out: the execution
   * is sent and confirmed, the sequence not stopped, the contact active, the campaign
   * running. `delayMs` reads a step's delay. Returns the new execution's id, if created.
   * A one-time campaign already marked `sent` is `sending` again.
   */
  createNext(executionId: string, newId: () => string, delayMs: (delay: string) => number, now: string): NextStep | undefined {
    const sent = this.sentStep(executionId);
    if (!sent || sent.status !== "sent" || sent.unconfirmed === 1 || !sent.sent_at) return undefined;
    const followUps = JSON.parse(sent.follow_ups) as Array<{ delay: string }>;
    const next = followUps[sent.step];
    if (!next) return undefined;
    if (sent.stopped || !SENDABLE_CONTACT_STATUSES.includes(sent.contact_status ?? "")) return undefined;
    if (!(RUNNING[sent.campaign_type] as readonly string[]).includes(sent.campaign_status)) return undefined;
    const id = newId();
    const due = new Date(new Date(sent.sent_at).getTime() + delayMs(next.delay)).toISOString();
    const inserted = this.db
      .prepare(
        `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, not_before, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (campaign_id, contact_id, step) DO NOTHING`,
      )
      .run(id, sent.campaign_id, sent.team_id, sent.contact_id, sent.step + 1, due, now, now).changes;
    if (inserted === 0) return undefined;
    this.db.prepare("UPDATE campaigns SET status = 'sending', sent_at = NULL, updated_at = ? WHERE id = ? AND type = 'one-time' AND status = 'sent'").run(now, sent.campaign_id);
    return { id, due, campaignId: sent.campaign_id, contactId: sent.contact_id, teamId: sent.team_id };
  }

  /** What a step's send window is read with: the campaign's window, the contact's and the brand's zones. */
  windowContext(step: NextStep): { send_window: string | null; contact_zone: string | null; brand_zone: string | null } {
    return this.db
      .prepare(
        `SELECT c.send_window, ct.time_zone AS contact_zone, (SELECT b.time_zone FROM brand_settings b WHERE b.team_id = ?) AS brand_zone
         FROM campaigns c, contacts ct WHERE c.id = ? AND ct.id = ?`,
      )
      .get(step.teamId, step.campaignId, step.contactId) as { send_window: string | null; contact_zone: string | null; brand_zone: string | null };
  }

  /** A pending step waits for `at` (its window's opening), saying why. */
  deferTo(id: string, at: string, reason: string, now: string): void {
    this.db.prepare("UPDATE campaign_executions SET not_before = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'pending'").run(at, reason, now, id);
  }

  /**
   * Sent, confirmed executions whose next step exists in the campaign but was not created
   * (of one campaign, or of every campaign with follow-ups that may still send). Driven by
   * campaign, so each look-up is on the (campaign, contact, step) index, not a table scan.
   */
  missingNext(campaignId?: string): string[] {
    const campaigns = campaignId
      ? [campaignId]
      : (this.db
          .prepare("SELECT id FROM campaigns WHERE follow_ups <> '[]' AND status IN ('scheduled', 'sending', 'sent', 'active')")
          .pluck()
          .all() as string[]);
    const missing = this.db.prepare(
      `SELECT e.id FROM campaign_executions e JOIN campaigns c ON c.id = e.campaign_id
       WHERE e.campaign_id = ? AND e.status = 'sent' AND e.unconfirmed = 0 AND e.step < json_array_length(c.follow_ups)
         AND NOT EXISTS (SELECT 1 FROM campaign_executions n WHERE n.campaign_id = e.campaign_id AND n.contact_id = e.contact_id AND n.step = e.step + 1)
         AND NOT EXISTS (SELECT 1 FROM sequence_stops s WHERE s.campaign_id = e.campaign_id AND s.contact_id = e.contact_id)`,
    );
    return campaigns.flatMap((id) => missing.pluck().all(id) as string[]);
  }

  /** The Message-IDs a contact got from a campaign before `step`, in step order (the thread's References). */
  thread(campaignId: string, contactId: string, beforeStep: number): string[] {
    return this.db
      .prepare("SELECT message_id FROM campaign_executions WHERE campaign_id = ? AND contact_id = ? AND step < ? AND message_id IS NOT NULL ORDER BY step")
      .pluck()
      .all(campaignId, contactId, beforeStep) as string[];
  }

  /** A launched one-time campaign, not finished: cancelled (guarded). */
  cancelOneTime(teamId: string, id: string, now: string): CampaignRow | undefined {
    return this.db
      .prepare(
        `UPDATE campaigns SET status = 'cancelled', updated_at = ?
         WHERE id = ? AND team_id = ? AND type = 'one-time' AND launched_at IS NOT NULL AND status IN ('scheduled', 'sending') RETURNING *`,
      )
      .get(now, id, teamId) as CampaignRow | undefined;
  }

  /** Follow-up steps a pause cancelled: pending again (their due time kept), unless the sequence stopped since. */
  resumeCancelledSteps(campaignId: string, now: string): number {
    return this.db
      .prepare(
        `UPDATE campaign_executions SET status = 'pending', error = NULL, throttled = 0, updated_at = ?
         WHERE campaign_id = ? AND status = 'cancelled' AND step > 0
           AND NOT EXISTS (SELECT 1 FROM sequence_stops s WHERE s.campaign_id = campaign_executions.campaign_id AND s.contact_id = campaign_executions.contact_id)`,
      )
      .run(now, campaignId).changes;
  }

  execution(campaignId: string, executionId: string): ExecutionRow | undefined {
    return this.db.prepare("SELECT * FROM campaign_executions WHERE id = ? AND campaign_id = ?").get(executionId, campaignId) as ExecutionRow | undefined;
  }

  /** An unconfirmed execution: confirmed (it arrived). */
  confirm(executionId: string, now: string): boolean {
    return (
      this.db
        .prepare("UPDATE campaign_executions SET unconfirmed = 0, error = NULL, updated_at = ? WHERE id = ? AND status = 'sent' AND unconfirmed = 1")
        .run(now, executionId).changes === 1
    );
  }

  /** An unconfirmed execution: pending again, due now, a fresh retry window; its Message-ID is kept. */
  resend(executionId: string, note: string, now: string): boolean {
    return (
      this.db
        .prepare(
          `UPDATE campaign_executions SET status = 'pending', unconfirmed = 0, sent_at = NULL, not_before = ?, first_attempt_at = NULL,
             error = ?, throttled = 0, claimed_by = NULL, updated_at = ?
           WHERE id = ? AND status = 'sent' AND unconfirmed = 1`,
        )
        .run(now, note, now, executionId).changes === 1
    );
  }

  /** A one-time campaign marked `sent` whose execution is queued again: `sending` again. */
  reopen(campaignId: string, now: string): void {
    this.db.prepare("UPDATE campaigns SET status = 'sending', sent_at = NULL, updated_at = ? WHERE id = ? AND type = 'one-time' AND status = 'sent'").run(now, campaignId);
  }
}
