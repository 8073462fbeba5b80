import { StatementCache, type Db } from "./db.js";
import { DeliveriesRepo } from "./deliveries.js";

/**
 * Statements kept prepared per database: every reply, bounce and unsubscribe stops a
 * sequence, and a first sync of a large mailbox records hundreds of replies in a row.
 */
const prepared = new WeakMap<Db, { statements: StatementCache; deliveries: DeliveriesRepo }>();

function kept(db: Db): { statements: StatementCache; deliveries: DeliveriesRepo } {
  let entry = prepared.get(db);
  if (!entry) prepared.set(db, (entry = { statements: new StatementCache(db), deliveries: new DeliveriesRepo(db) }));
  return entry;
}

export type SequenceStopReason = "replied" | "replied-domain" | "auto-replied" | "bounced" | "unsubscribed" | "cancelled";

/**
 * Stops the sequences of some contacts in one campaign: records the stop (so no later step
 * is ever created for them, even from a step that is in flight now) and skips their open
 * steps (a one-time campaign left with none is `sent`). Call it inside the transaction that records the cause (the reply, the bounce, the
 * unsubscribe), so the cause and the stop are one fact. Returns the number of skipped steps.
 */
export function stopSequences(db: Db, campaignId: string, contactIds: readonly string[], reason: SequenceStopReason, now: string): number {
  const { statements, deliveries } = kept(db);
  const record = statements.get("INSERT INTO sequence_stops (campaign_id, contact_id, reason, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
  const skip = statements.get(
    `UPDATE campaign_executions SET status = 'skipped', error = ?, claimed_by = NULL, updated_at = ?
     WHERE campaign_id = ? AND contact_id = ? AND status IN ('pending', 'queued')`,
  );
  let skipped = 0;
  for (const contactId of contactIds) {
    record.run(campaignId, contactId, reason, now);
    skipped += skip.run(reason, now, campaignId, contactId).changes;
  }
  // A one-time campaign whose last open steps were just skipped is done now: no delivery
  // pass would look at it again to say so.
  if (skipped > 0) deliveries.completeCampaigns([campaignId], now);
  return skipped;
}

/** Whether the sequence of a contact in a campaign was stopped (its next step must not be created). */
export function isSequenceStopped(db: Db, campaignId: string, contactId: string): boolean {
  return db.prepare("SELECT 1 FROM sequence_stops WHERE campaign_id = ? AND contact_id = ?").get(campaignId, contactId) !== undefined;
}

/**
 * Stops a contact's sequences in every campaign it has a step in (a bounce, an
 * unsubscribe: they concern the address, not one campaign). Same transaction rule as
 * `stopSequences`. Returns the number of skipped steps.
 */
export function stopSequencesOfContact(db: Db, contactId: string, reason: SequenceStopReason, now: string): number {
  const { statements, deliveries } = kept(db);
  const campaigns = (statements.get("SELECT DISTINCT campaign_id FROM campaign_executions WHERE contact_id = ?").all(contactId) as Array<{ campaign_id: string }>).map((r) => r.campaign_id);
  let skipped = 0;
  for (const campaignId of campaigns) skipped += stopSequences(db, campaignId, [contactId], reason, now);
  // The caller may have skipped the open steps itself first: the campaigns left with none are done.
  deliveries.completeCampaigns(campaigns, now);
  return skipped;
}
