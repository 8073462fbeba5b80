import type { Db } from "./db.js";

export interface CampaignRow {
  id: string;
  team_id: string;
  name: string;
  type: "one-time" | "lifetime";
  status: string;
  subject: string;
  scheduled_at: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
  body_markdown: string;
  sending_domain_id: string | null;
  launched_at: string | null;
  /** JSON `{tags, statuses}` of the launch. */
  audience: string | null;
  /** JSON `[{delay, subject, bodyMarkdown}]`: the steps after step 0 (migration 022). */
  follow_ups: string;
  /** JSON SendWindow, or null. */
  send_window: string | null;
  stop_scope: "contact" | "domain";
  stop_on_auto_reply: number;
}

export type ExecutionStatusValue = "pending" | "queued" | "sending" | "sent" | "failed" | "cancelled" | "bounced" | "skipped";

export interface ExecutionRow {
  id: string;
  campaign_id: string;
  team_id: string;
  contact_id: string;
  step: number;
  status: ExecutionStatusValue;
  created_at: string;
  updated_at: string;
  not_before: string | null;
  attempts: number;
  first_attempt_at: string | null;
  claimed_by: string | null;
  message_id: string | null;
  sent_at: string | null;
  error: string | null;
  unconfirmed: number;
  throttled: number;
  replied_at: string | null;
}

/** What a new execution is made of; the delivery columns start empty. */
export type NewExecution = Pick<ExecutionRow, "id" | "campaign_id" | "team_id" | "contact_id" | "step" | "status" | "not_before" | "created_at" | "updated_at">;

/** The columns a campaign's PATCH may change. */
export type CampaignChanges = Partial<
  Pick<CampaignRow, "name" | "subject" | "body_markdown" | "sending_domain_id" | "scheduled_at" | "status" | "follow_ups" | "send_window" | "stop_scope" | "stop_on_auto_reply">
>;

export interface Page<T> {
  rows: T[];
  total: number;
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => "?").join(", ");
}

export class CampaignsRepo {
  constructor(private readonly db: Db) {}

  insert(row: CampaignRow): void {
    this.db
      .prepare(
        `INSERT INTO campaigns (id, team_id, name, type, status, subject, scheduled_at, sent_at, created_at, updated_at,
           body_markdown, sending_domain_id, launched_at, audience, follow_ups, send_window, stop_scope, stop_on_auto_reply)
         VALUES (@id, @team_id, @name, @type, @status, @subject, @scheduled_at, @sent_at, @created_at, @updated_at,
           @body_markdown, @sending_domain_id, @launched_at, @audience, @follow_ups, @send_window, @stop_scope, @stop_on_auto_reply)`,
      )
      .run(row);
  }

  /**
   * Change a campaign that is still editable: a one-time campaign not launched, a lifetime
   * campaign in draft. Guarded in the statement, so a launch or activation in between
   * makes it a no-op (undefined).
   */
  updateEditable(teamId: string, id: string, changes: CampaignChanges, now: string): CampaignRow | undefined {
    const columns = Object.keys(changes) as Array<keyof CampaignChanges>;
    const sets = [...columns.map((c) => `${c} = @${c}`), "updated_at = @now"];
    return this.db
      .prepare(
        `UPDATE campaigns SET ${sets.join(", ")}
         WHERE id = @id AND team_id = @team_id AND launched_at IS NULL AND (type = 'one-time' OR status = 'draft') RETURNING *`,
      )
      .get({ ...changes, now, id, team_id: teamId }) as CampaignRow | undefined;
  }

  /** Mark a one-time campaign launched (guarded: once). */
  markLaunched(teamId: string, id: string, status: "scheduled" | "sending", scheduledAt: string, audience: string, now: string): CampaignRow | undefined {
    return this.db
      .prepare(
        `UPDATE campaigns SET status = ?, scheduled_at = ?, launched_at = ?, audience = ?, updated_at = ?
         WHERE id = ? AND team_id = ? AND type = 'one-time' AND launched_at IS NULL RETURNING *`,
      )
      .get(status, scheduledAt, now, audience, now, id, teamId) as CampaignRow | undefined;
  }

  /**
   * The contacts a launch queues: active ones of the workspace with any of `tags` (all when
   * none), not on the suppression list (compared by blind index; the delivery checks again
   * under every loaded key, for a rotation in progress).
   */
  launchableContacts(teamId: string, tags: readonly string[], statuses: readonly string[] = ["active"]): string[] {
    const tagClause = tags.length
      ? `AND EXISTS (SELECT 1 FROM contact_tags t WHERE t.team_id = c.team_id AND t.contact_id = c.id AND t.tag IN (${placeholders(tags)}))`
      : "";
    return (
      this.db
        .prepare(
          `SELECT c.id FROM contacts c WHERE c.team_id = ? AND c.status IN (${placeholders(statuses)}) ${tagClause}
           AND NOT EXISTS (SELECT 1 FROM email_suppressions s WHERE s.team_id = c.team_id AND s.email_bidx = c.email_bidx)
           ORDER BY c.created_at, c.id`,
        )
        .pluck()
        .all(teamId, ...statuses, ...tags) as string[]
    );
  }

  insertExecutions(rows: readonly NewExecution[]): void {
    const insert = this.db.prepare(
      `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, not_before, created_at, updated_at)
       VALUES (@id, @campaign_id, @team_id, @contact_id, @step, @status, @not_before, @created_at, @updated_at)`,
    );
    for (const row of rows) insert.run(row);
  }

  /** Executions of a campaign by status. */
  executionCounts(campaignId: string): Array<{ status: ExecutionStatusValue; n: number }> {
    return this.db.prepare("SELECT status, count(*) AS n FROM campaign_executions WHERE campaign_id = ? GROUP BY status").all(campaignId) as Array<{
      status: ExecutionStatusValue;
      n: number;
    }>;
  }

  /** Contacts whose sequence in this campaign was stopped for `reason` (sequence_stops). */
  stoppedBy(campaignId: string, reason: string): number {
    return this.db.prepare("SELECT count(*) FROM sequence_stops WHERE campaign_id = ? AND reason = ?").pluck().get(campaignId, reason) as number;
  }

  /** Executions of a campaign whose contact replied to them. */
  repliedCount(campaignId: string): number {
    return this.db.prepare("SELECT count(*) FROM campaign_executions WHERE campaign_id = ? AND replied_at IS NOT NULL").pluck().get(campaignId) as number;
  }

  /** A sending domain of the workspace: its status, or undefined. */
  sendingDomainStatus(teamId: string, id: string): { domain: string; status: string } | undefined {
    return this.db.prepare("SELECT domain, status FROM sending_domains WHERE id = ? AND team_id = ?").get(id, teamId) as
      | { domain: string; status: string }
      | undefined;
  }

  /** Scoped by workspace: another workspace's id reads as unknown. */
  byId(teamId: string, id: string): CampaignRow | undefined {
    return this.db.prepare("SELECT * FROM campaigns WHERE id = ? AND team_id = ?").get(id, teamId) as CampaignRow | undefined;
  }

  list(teamId: string, filter: { statuses?: readonly string[]; type?: string }, limit: number, offset: number): Page<CampaignRow> {
    const where = ["team_id = ?"];
    const args: unknown[] = [teamId];
    if (filter.statuses?.length) {
      where.push(`status IN (${placeholders(filter.statuses)})`);
      args.push(...filter.statuses);
    }
    if (filter.type) {
      where.push("type = ?");
      args.push(filter.type);
    }
    return this.newestFirst<CampaignRow>("campaigns", where, args, limit, offset);
  }

  /**
   * The guarded status change: it happens only if the campaign is still in one of `from`,
   * so a concurrent change in between makes it a no-op (undefined) instead of a lost update.
   */
  moveStatus(teamId: string, id: string, from: readonly string[], to: string, now: string): CampaignRow | undefined {
    if (from.length === 0) return undefined;
    return this.db
      .prepare(
        `UPDATE campaigns SET status = ?, updated_at = ?
         WHERE id = ? AND team_id = ? AND type = 'lifetime' AND status IN (${placeholders(from)}) RETURNING *`,
      )
      .get(to, now, id, teamId, ...from) as CampaignRow | undefined;
  }

  /** Pending and queued executions become cancelled; sent, failed and cancelled ones stay. Returns how many. */
  cancelOpenExecutions(campaignId: string, now: string): number {
    return this.db
      .prepare(
        `UPDATE campaign_executions SET status = 'cancelled', updated_at = ?
         WHERE campaign_id = ? AND status IN ('pending', 'queued')`,
      )
      .run(now, campaignId).changes;
  }

  /** The contact's status in this workspace, or undefined when it is unknown or another workspace's. */
  contactStatus(teamId: string, contactId: string): string | undefined {
    const row = this.db.prepare("SELECT status FROM contacts WHERE id = ? AND team_id = ?").get(contactId, teamId) as { status: string } | undefined;
    return row?.status;
  }

  /**
   * Queue a contact for a step, at most once: a new row, or a cancelled one re-queued (it
   * was never sent). A row in any other status is left as it is. `created` says whether
   * this call queued it.
   */
  queueExecution(row: NewExecution): { execution: ExecutionRow; created: boolean } {
    const inserted = this.db
      .prepare(
        `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, not_before, created_at, updated_at)
         VALUES (@id, @campaign_id, @team_id, @contact_id, @step, @status, @not_before, @created_at, @updated_at)
         ON CONFLICT (campaign_id, contact_id, step) DO UPDATE SET status = excluded.status, not_before = excluded.not_before,
           error = NULL, throttled = 0, updated_at = excluded.updated_at
         WHERE campaign_executions.status = 'cancelled'
         RETURNING *`,
      )
      .get(row) as ExecutionRow | undefined;
    if (inserted) return { execution: inserted, created: true };
    const existing = this.db
      .prepare("SELECT * FROM campaign_executions WHERE campaign_id = ? AND contact_id = ? AND step = ?")
      .get(row.campaign_id, row.contact_id, row.step) as ExecutionRow;
    return { execution: existing, created: false };
  }

  executions(campaignId: string, filter: { statuses?: readonly string[]; unconfirmed?: boolean }, limit: number, offset: number): Page<ExecutionRow> {
    const where = ["campaign_id = ?"];
    const args: unknown[] = [campaignId];
    const statuses = filter.statuses;
    if (statuses?.length) {
      where.push(`status IN (${placeholders(statuses)})`);
      args.push(...statuses);
    }
    // Unconfirmed: recorded as sent after a crash, waiting for the user's resolve.
    if (filter.unconfirmed !== undefined) where.push(filter.unconfirmed ? "status = 'sent' AND unconfirmed = 1" : "unconfirmed = 0");
    return this.newestFirst<ExecutionRow>("campaign_executions", where, args, limit, offset);
  }

  /** One page of a table's rows matching every condition, newest first, and how many match in all. */
  private newestFirst<Row>(table: "campaigns" | "campaign_executions", where: readonly string[], args: readonly unknown[], limit: number, offset: number): Page<Row> {
    const clause = where.join(" AND ");
    const total = (this.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${clause}`).get(...args) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM ${table} WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`).all(...args, limit, offset) as Row[];
    return { rows, total };
  }
}
