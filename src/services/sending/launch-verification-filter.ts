import { VerificationRepo } from "../../store/contact-verification.js";
import type { Db } from "../../store/db.js";

/** A launch's audience split by verification (decisions.md, "Address verification"). */
export interface VerifiedAudience {
  /** Why each skipped contact is skipped (its execution's `error`). */
  skipped: Map<string, string>;
  /** The launch answer's `skipped` (an addition to `{campaign, queued}`). */
  summary: { undeliverable: number };
}

/**
 * Launch skips contacts whose verification is `undeliverable`: each gets an execution
 * `skipped` whose `error` says why, so the campaign's record shows them, unless the body
 * says `includeUndeliverable: true`. Unverified, unknown and risky contacts are sent to.
 * Call inside the launch's transaction.
 */
export function filterUndeliverable(db: Db, teamId: string, contactIds: readonly string[], includeUndeliverable: boolean | undefined): VerifiedAudience {
  if (includeUndeliverable) return { skipped: new Map(), summary: { undeliverable: 0 } };
  const found = new VerificationRepo(db).undeliverableAmong(teamId, contactIds);
  const skipped = new Map([...found].map(([id, reason]) => [id, `skipped: the address was verified undeliverable (${reason}); launch with includeUndeliverable: true to send anyway`]));
  return { skipped, summary: { undeliverable: skipped.size } };
}

/** The skipped executions' reasons, written after the launch inserted them (same transaction). */
export function recordSkipReasons(db: Db, rows: ReadonlyArray<{ id: string; contact_id: string }>, audience: VerifiedAudience): void {
  const update = db.prepare("UPDATE campaign_executions SET error = ? WHERE id = ?");
  for (const row of rows) {
    const reason = audience.skipped.get(row.contact_id);
    if (reason !== undefined) update.run(reason, row.id);
  }
}
