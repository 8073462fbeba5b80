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
}

export interface ExecutionRow {
  id: string;
  campaign_id: string;
  team_id: string;
  contact_id: string;
  step: number;
  status: "pending" | "queued" | "sent" | "cancelled" | "failed";
  created_at: string;
  updated_at: string;
}

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
        `INSERT INTO campaigns (id, team_id, name, type, status, subject, scheduled_at, sent_at, created_at, updated_at)
         VALUES (@id, @team_id, @name, @type, @status, @subject, @scheduled_at, @sent_at, @created_at, @updated_at)`,
      )
      .run(row);
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
    const clause = where.join(" AND ");
    const total = (this.db.prepare(`SELECT count(*) AS n FROM campaigns WHERE ${clause}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM campaigns WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset) as CampaignRow[];
    return { rows, total };
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
   * was never sent). A queued, sent or failed row is left as it is. `created` says whether
   * this call queued it.
   */
  queueExecution(row: ExecutionRow): { execution: ExecutionRow; created: boolean } {
    const inserted = this.db
      .prepare(
        `INSERT INTO campaign_executions (id, campaign_id, team_id, contact_id, step, status, created_at, updated_at)
         VALUES (@id, @campaign_id, @team_id, @contact_id, @step, @status, @created_at, @updated_at)
         ON CONFLICT (campaign_id, contact_id, step) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at
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

  executions(campaignId: string, statuses: readonly string[] | undefined, limit: number, offset: number): Page<ExecutionRow> {
    const where = ["campaign_id = ?"];
    const args: unknown[] = [campaignId];
    if (statuses?.length) {
      where.push(`status IN (${placeholders(statuses)})`);
      args.push(...statuses);
    }
    const clause = where.join(" AND ");
    const total = (this.db.prepare(`SELECT count(*) AS n FROM campaign_executions WHERE ${clause}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM campaign_executions WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset) as ExecutionRow[];
    return { rows, total };
  }
}
