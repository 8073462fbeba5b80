import { badRequest, conflict, forbidden, notFound } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type {
  Campaign,
  CampaignExecution,
  CreateCampaignBody,
  LifecycleBody,
  LifetimeStatus,
  ListCampaignsQuery,
  ListExecutionsQuery,
} from "../core/schemas/campaign.js";
import { CampaignsRepo, type CampaignRow, type ExecutionRow } from "../store/campaigns.js";
import type { Principal } from "./auth.js";
import { allowedSources, CANCELS_OPEN_EXECUTIONS, illegalMoveMessage } from "./campaign-lifecycle.js";
import type { ServiceDeps } from "./deps.js";

/** The scope a team API key needs to trigger a lifetime campaign. */
export const TRIGGER_SCOPE = "campaigns:trigger";

/** Executions have one step in this release; the column is there for multi-step sequences. */
const FIRST_STEP = 0;

export const toCampaign = (row: CampaignRow): Campaign => ({
  id: row.id,
  name: row.name,
  type: row.type,
  status: row.status as Campaign["status"],
  subject: row.subject,
  scheduledAt: row.scheduled_at,
  sentAt: row.sent_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toExecution = (row: ExecutionRow): CampaignExecution => ({
  id: row.id,
  campaignId: row.campaign_id,
  contactId: row.contact_id,
  step: row.step,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function paginate<T>(page: number, limit: number, total: number, items: T[]) {
  return { total, page, limit, totalPages: Math.ceil(total / limit), items };
}

/**
 * Campaigns (docs/api.md, "Campaigns": endpoints 3 and 4, and the additions around them).
 * Every write is one immediate transaction; status changes are guarded UPDATEs.
 */
export class CampaignService {
  private readonly repo: CampaignsRepo;

  constructor(private readonly deps: Pick<ServiceDeps, "db" | "clock">) {
    this.repo = new CampaignsRepo(deps.db);
  }

  create(principal: Principal, body: CreateCampaignBody): Campaign {
    const now = this.deps.clock.now();
    let scheduledAt: string | null = null;
    if (body.scheduledAt) {
      if (body.type === "lifetime") throw badRequest("invalid body: scheduledAt applies to one-time campaigns only (lifetime campaigns run on triggers)");
      const at = new Date(body.scheduledAt);
      if (at.getTime() <= now.getTime()) throw badRequest("invalid body: scheduledAt must be in the future");
      scheduledAt = at.toISOString();
    }
    const stamp = now.toISOString();
    const row: CampaignRow = {
      id: newId("cmp"),
      team_id: principal.teamId,
      name: body.name,
      type: body.type,
      // Lifetime campaigns start as drafts; a one-time campaign with a date is scheduled.
      status: body.type === "lifetime" ? "draft" : scheduledAt ? "scheduled" : "draft",
      subject: body.subject,
      scheduled_at: scheduledAt,
      sent_at: null,
      created_at: stamp,
      updated_at: stamp,
    };
    this.deps.db.transaction(() => this.repo.insert(row)).immediate();
    return toCampaign(row);
  }

  get(principal: Principal, id: string): Campaign {
    return toCampaign(this.row(principal.teamId, id));
  }

  list(principal: Principal, query: ListCampaignsQuery) {
    const { rows, total } = this.repo.list(
      principal.teamId,
      { statuses: query.status, type: query.type },
      query.limit,
      (query.page - 1) * query.limit,
    );
    const { items, ...page } = paginate(query.page, query.limit, total, rows.map(toCampaign));
    return { campaigns: items, ...page };
  }

  /**
   * Endpoint 3. One immediate transaction: read, guarded UPDATE, and the cancelling of
   * pending/queued executions, so no trigger can slip in between a pause and its cancel.
   */
  changeLifecycle(principal: Principal, id: string, body: LifecycleBody): Campaign {
    const target = body.status;
    return this.deps.db
      .transaction(() => {
        const current = this.row(principal.teamId, id);
        if (current.type !== "lifetime") throw conflict("lifecycle applies to lifetime campaigns");
        const from = current.status as LifetimeStatus;
        if (body.expectedStatus && body.expectedStatus !== from) {
          throw conflict(`campaign ${id} is ${from}, not ${body.expectedStatus} as expected: it was changed meanwhile`);
        }
        if (from === target) return toCampaign(current);
        const stamp = this.deps.clock.now().toISOString();
        const moved = this.repo.moveStatus(principal.teamId, id, allowedSources(target), target, stamp);
        if (!moved) throw conflict(illegalMoveMessage(id, from, target));
        if (CANCELS_OPEN_EXECUTIONS.has(target)) this.repo.cancelOpenExecutions(id, stamp);
        return toCampaign(moved);
      })
      .immediate();
  }

  /**
   * Lifetime trigger: queue the contact for the campaign's first step. A contact already
   * queued (or sent) is answered with that execution and `created: false`, so a retried
   * webhook never queues twice; one cancelled by a pause is queued again.
   */
  trigger(principal: Principal, campaignId: string, contactId: string): { execution: CampaignExecution; created: boolean } {
    if (principal.kind !== "key" || !principal.scopes?.includes(TRIGGER_SCOPE)) {
      throw forbidden(`this team API key lacks the scope ${TRIGGER_SCOPE}`);
    }
    return this.deps.db
      .transaction(() => {
        const campaign = this.row(principal.teamId, campaignId);
        if (campaign.type !== "lifetime") throw conflict("triggers apply to lifetime campaigns");
        if (campaign.status !== "active") {
          throw conflict(`campaign ${campaignId} is ${campaign.status}: only active lifetime campaigns accept triggers`);
        }
        const contactStatus = this.repo.contactStatus(principal.teamId, contactId);
        if (!contactStatus) throw notFound(`contact ${contactId} not found`);
        // An unsubscribed contact must never be emailed again: refuse rather than queue.
        if (contactStatus !== "active") throw conflict(`contact ${contactId} is ${contactStatus}: campaigns are not sent to it`);
        const stamp = this.deps.clock.now().toISOString();
        const result = this.repo.queueExecution({
          id: newId("exe"),
          campaign_id: campaign.id,
          team_id: principal.teamId,
          contact_id: contactId,
          step: FIRST_STEP,
          status: "queued",
          created_at: stamp,
          updated_at: stamp,
        });
        return { execution: toExecution(result.execution), created: result.created };
      })
      .immediate();
  }

  executions(principal: Principal, campaignId: string, query: ListExecutionsQuery) {
    const campaign = this.row(principal.teamId, campaignId);
    const { rows, total } = this.repo.executions(campaign.id, query.status, query.limit, (query.page - 1) * query.limit);
    const { items, ...page } = paginate(query.page, query.limit, total, rows.map(toExecution));
    return { executions: items, ...page };
  }

  private row(teamId: string, id: string): CampaignRow {
    const row = this.repo.byId(teamId, id);
    // Unknown and another workspace's campaign look the same: no existence oracle.
    if (!row) throw notFound(`campaign ${id} not found`);
    return row;
  }
}
