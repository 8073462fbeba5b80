import { badRequest, conflict, forbidden, notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import {
  ExecutionStatus,
  type Campaign,
  type CampaignExecution,
  type CreateCampaignBody,
  type ExecutionCounts,
  type LaunchBody,
  type LifecycleBody,
  type LifetimeStatus,
  type ListCampaignsQuery,
  type ListExecutionsQuery,
  type MessagePreview,
  type UpdateCampaignBody,
} from "../../core/schemas/campaign.js";
import { CampaignsRepo, type CampaignChanges, type CampaignRow, type ExecutionRow, type NewExecution } from "../../store/campaigns.js";
import type { Principal } from "../access/auth.js";
import type { BrandService } from "./brand.js";
import { allowedSources, CANCELS_OPEN_EXECUTIONS, illegalMoveMessage } from "./campaign-lifecycle.js";
import type { ContactService } from "../contacts/contacts.js";
import type { ServiceDeps } from "../deps.js";
import type { MessageTemplates } from "./message-template.js";
import type { OutgoingMessages } from "./outgoing-message.js";
import type { SendingDomainService } from "./sending-domains.js";
import { followUpsOf, sequenceChangesOf, sequenceColumnsOfCreate, sequenceFieldsOf, validateFollowUps } from "./campaign-sequence.js";
import type { SequenceSteps } from "./sequence-steps.js";
import { filterUndeliverable, recordSkipReasons, type VerifiedAudience } from "./launch-verification-filter.js";
import type { ContactOpenerStore } from "../contacts/contact-openers.js";
import { assertOpenersPresent } from "./launch-openers-check.js";

/** The scope a team API key needs to trigger a lifetime campaign. */
export const TRIGGER_SCOPE = "campaigns:trigger";

/** Launches and triggers create step 0; the later steps are created as each one is sent (sequence-steps.ts). */
const FIRST_STEP = 0;

export const toCampaign = (row: CampaignRow): Campaign => ({
  id: row.id,
  name: row.name,
  type: row.type,
  status: row.status as Campaign["status"],
  subject: row.subject,
  bodyMarkdown: row.body_markdown,
  sendingDomainId: row.sending_domain_id,
  scheduledAt: row.scheduled_at,
  sentAt: row.sent_at,
  launchedAt: row.launched_at,
  ...sequenceFieldsOf(row),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toExecution = (row: ExecutionRow): CampaignExecution => ({
  id: row.id,
  campaignId: row.campaign_id,
  contactId: row.contact_id,
  step: row.step,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.status === "pending" ? row.not_before : null,
  messageId: row.message_id,
  sentAt: row.sent_at,
  error: row.error,
  unconfirmed: row.unconfirmed === 1,
  repliedAt: row.replied_at,
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
export interface CampaignServiceDeps extends Pick<ServiceDeps, "db" | "clock"> {
  templates: MessageTemplates;
  brand: BrandService;
  contacts: ContactService;
  sendingDomains: SendingDomainService;
  /** Builds messages (preview); made lazily because its unsubscribe key lives in the database. */
  messages: () => OutgoingMessages;
  sequences: SequenceSteps;
  /** AI openers: launch refuses while a template uses one and a contact has none. */
  openers?: ContactOpenerStore;
}

export class CampaignService {
  private readonly repo: CampaignsRepo;

  constructor(private readonly deps: CampaignServiceDeps) {
    this.repo = new CampaignsRepo(deps.db);
  }

  /** A future date as stored, or a 400 naming `field`. */
  private futureDate(value: string, field: string): string {
    const at = new Date(value);
    if (at.getTime() <= this.deps.clock.now().getTime()) throw badRequest(`invalid body: ${field} must be in the future`);
    return at.toISOString();
  }

  /** The templates are checked when saved: a typo is a 400 naming the variable (message-template.ts). */
  private async validateContent(teamId: string, content: Pick<UpdateCampaignBody, "subject" | "bodyMarkdown" | "followUps">): Promise<void> {
    const brand = this.deps.brand.forTeam(teamId);
    if (content.subject !== undefined) await this.deps.templates.validate("subject", content.subject, brand);
    if (content.bodyMarkdown !== undefined) await this.deps.templates.validate("bodyMarkdown", content.bodyMarkdown, brand);
    await validateFollowUps(this.deps.templates, brand, content.followUps);
  }

  private assertDomainOfTeam(teamId: string, id: string | null | undefined): void {
    if (id && !this.repo.sendingDomainStatus(teamId, id)) throw badRequest(`invalid body: sendingDomainId ${id} is not a sending domain of this workspace`);
  }

  async create(principal: Principal, body: CreateCampaignBody): Promise<Campaign> {
    const now = this.deps.clock.now();
    let scheduledAt: string | null = null;
    if (body.scheduledAt) {
      if (body.type === "lifetime") throw badRequest("invalid body: scheduledAt applies to one-time campaigns only (lifetime campaigns run on triggers)");
      scheduledAt = this.futureDate(body.scheduledAt, "scheduledAt");
    }
    await this.validateContent(principal.teamId, body);
    this.assertDomainOfTeam(principal.teamId, body.sendingDomainId);
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
      body_markdown: body.bodyMarkdown ?? "",
      sending_domain_id: body.sendingDomainId ?? null,
      launched_at: null,
      audience: null,
      ...sequenceColumnsOfCreate(body),
    };
    this.deps.db.transaction(() => this.repo.insert(row)).immediate();
    return toCampaign(row);
  }

  get(principal: Principal, id: string): Campaign {
    return toCampaign(this.row(principal.teamId, id));
  }

  /** Endpoint 4 with the addition: how many executions are in each status. */
  detail(principal: Principal, id: string): { campaign: Campaign; executionCounts: ExecutionCounts; unsubscribed: number } {
    const row = this.row(principal.teamId, id);
    const counts = Object.fromEntries([...ExecutionStatus.options, "replied"].map((s) => [s, 0])) as ExecutionCounts;
    for (const { status, n } of this.repo.executionCounts(row.id)) counts[status] = n;
    counts.replied = this.repo.repliedCount(row.id);
    return { campaign: toCampaign(row), executionCounts: counts, unsubscribed: this.repo.stoppedBy(row.id, "unsubscribed") };
  }

  /** `PATCH /api/v1/campaigns/{id}`: a campaign not yet launched (one-time) or a draft (lifetime); 409 otherwise. */
  async update(principal: Principal, id: string, body: UpdateCampaignBody): Promise<Campaign> {
    const current = this.row(principal.teamId, id);
    const changes: CampaignChanges = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.subject !== undefined) changes.subject = body.subject;
    if (body.bodyMarkdown !== undefined) changes.body_markdown = body.bodyMarkdown;
    if (body.sendingDomainId !== undefined) {
      this.assertDomainOfTeam(principal.teamId, body.sendingDomainId);
      changes.sending_domain_id = body.sendingDomainId;
    }
    if (body.scheduledAt !== undefined) {
      if (current.type === "lifetime") throw badRequest("invalid body: scheduledAt applies to one-time campaigns only (lifetime campaigns run on triggers)");
      changes.scheduled_at = body.scheduledAt === null ? null : this.futureDate(body.scheduledAt, "scheduledAt");
      changes.status = changes.scheduled_at ? "scheduled" : "draft";
    }
    Object.assign(changes, sequenceChangesOf(body));
    await this.validateContent(principal.teamId, body);
    const stamp = this.deps.clock.now().toISOString();
    const updated = this.deps.db.transaction(() => this.repo.updateEditable(principal.teamId, id, changes, stamp)).immediate();
    if (!updated) {
      const now = this.row(principal.teamId, id);
      throw conflict(`campaign ${id} is ${now.status}${now.launched_at ? ` (launched ${now.launched_at})` : ""}: only a draft can be edited`);
    }
    return toCampaign(updated);
  }

  /**
   * What a campaign needs before anything is sent: content, a verified sending domain of
   * the workspace (the campaign's, else the workspace's default) and the brand's postal
   * address. 409 naming what is missing. Returns the domain to send from.
   */
  private assertSendable(teamId: string, campaign: CampaignRow): string {
    if (campaign.body_markdown.trim() === "") throw conflict(`campaign ${campaign.id} has no body yet: set bodyMarkdown first`);
    const domainId = campaign.sending_domain_id ?? this.deps.sendingDomains.defaultDomainId(teamId);
    if (!domainId) throw conflict("no sending domain is verified in this workspace: add one, publish its records and verify it, then set sendingDomainId");
    const domain = this.repo.sendingDomainStatus(teamId, domainId);
    if (!domain) throw conflict(`the campaign's sending domain ${domainId} was removed: choose another sendingDomainId`);
    if (domain.status !== "verified") throw conflict(`the sending domain ${domain.domain} is ${domain.status}, not verified: only verified domains send`);
    const brand = this.deps.brand.forTeam(teamId);
    if (!brand.postalAddress?.trim()) {
      throw conflict("the brand settings have no postalAddress: every message carries the sender's postal address (CAN-SPAM); set it with PATCH /api/v1/settings/brand");
    }
    return domainId;
  }

  /**
   * `POST /api/v1/campaigns/{id}/launch`: one execution per matching contact (active, any of
   * the tags, not suppressed), due at `scheduledAt` or now, in one transaction with the
   * campaign's move to `scheduled` or `sending`. Once only (409 after).
   */
  launch(principal: Principal, id: string, body: LaunchBody): { campaign: Campaign; queued: number; skipped: VerifiedAudience["summary"] } {
    const teamId = principal.teamId;
    const now = this.deps.clock.now();
    const at = body.scheduledAt ? this.futureDate(body.scheduledAt, "scheduledAt") : null;
    const tags = [...new Set(body.tags ?? [])];
    return this.deps.db
      .transaction(() => {
        const campaign = this.row(teamId, id);
        if (campaign.type !== "one-time") throw conflict("the launch endpoint does not accept a lifetime campaign");
        if (campaign.launched_at) throw conflict(`campaign ${id} was launched at ${campaign.launched_at}: a campaign is launched once`);
        const domainId = this.assertSendable(teamId, campaign);
        const statuses = [...new Set(body.statuses ?? ["active"])];
        const contactIds = this.repo.launchableContacts(teamId, tags, statuses);
        if (contactIds.length === 0) {
          throw conflict(`no contact matches${tags.length ? ` the tags ${tags.join(", ")}` : ""}: only ${statuses.join(" or ")} contacts that did not unsubscribe or bounce are sent to`);
        }
        // A date set at creation that has passed meanwhile means now.
        const stored = campaign.scheduled_at && new Date(campaign.scheduled_at) > now ? campaign.scheduled_at : null;
        const due = at ?? stored ?? now.toISOString();
        const stamp = now.toISOString();
        const audience = filterUndeliverable(this.deps.db, teamId, contactIds, body.includeUndeliverable);
        // Only the contacts that will be sent to need an opener (not those skipped as undeliverable).
        assertOpenersPresent(campaign, audience.skipped.size ? contactIds.filter((c) => !audience.skipped.has(c)) : contactIds, this.deps.openers);
        const rows: NewExecution[] = contactIds.map((contactId) => ({
          id: newId("exe"),
          campaign_id: id,
          team_id: teamId,
          contact_id: contactId,
          step: FIRST_STEP,
          status: audience.skipped.has(contactId) ? "skipped" : "pending",
          not_before: due,
          created_at: stamp,
          updated_at: stamp,
        }));
        this.repo.insertExecutions(rows);
        recordSkipReasons(this.deps.db, rows, audience);
        if (!campaign.sending_domain_id) this.repo.updateEditable(teamId, id, { sending_domain_id: domainId }, stamp);
        const selection = JSON.stringify({ tags, statuses });
        const launched = this.repo.markLaunched(teamId, id, due > stamp ? "scheduled" : "sending", due, selection, stamp);
        if (!launched) throw conflict(`campaign ${id} was launched meanwhile`);
        return { campaign: toCampaign(launched), queued: rows.length - audience.summary.undeliverable, skipped: audience.summary };
      })
      .immediate();
  }

  /** One contact's message as the campaign would send it now. */
  async preview(principal: Principal, id: string, contactId: string, step = 0): Promise<MessagePreview> {
    const campaign = this.row(principal.teamId, id);
    const steps = followUpsOf(campaign).length;
    if (step > steps) throw badRequest(`invalid query: step ${step} does not exist: the campaign has ${steps} follow-up step(s) after step 0`);
    const contact = this.deps.contacts.get(principal.teamId, contactId);
    const domainId = campaign.sending_domain_id ?? this.deps.sendingDomains.defaultDomainId(principal.teamId);
    const sender = domainId ? this.deps.sendingDomains.sender(principal.teamId, domainId) : undefined;
    const sent = this.deps.sequences.thread(id, contactId, step);
    const message = await this.deps.messages().build({
      campaign,
      executionId: "exe_preview",
      contact,
      sender: sender ?? { domain: "example.invalid", senderEmail: "sender@example.invalid", senderName: "(no sending domain yet)" },
      brand: this.deps.brand.forTeam(principal.teamId),
      step,
      // The thread as it would be: the Message-IDs already sent to the contact, else what they will look like.
      thread: Array.from({ length: step }, (_, k) => sent[k] ?? `<exe_preview_step${k}@${sender?.domain ?? "example.invalid"}>`),
    });
    const thread: Record<string, string> = message.inReplyTo ? { "In-Reply-To": message.inReplyTo, References: message.references!.join(" ") } : {};
    return {
      from: `${message.from.name} <${message.from.address}>`,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: { ...message.headers, "Message-ID": message.messageId, "Return-Path": `<${message.envelope.from}>`, ...thread },
    };
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
        // A resume continues the sequences: the follow-ups the pause cancelled, and those not created while paused.
        if (from === "paused" && target === "active") this.deps.sequences.resume(id, stamp);
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
          status: "pending",
          not_before: stamp,
          created_at: stamp,
          updated_at: stamp,
        });
        return { execution: toExecution(result.execution), created: result.created };
      })
      .immediate();
  }

  executions(principal: Principal, campaignId: string, query: ListExecutionsQuery) {
    const campaign = this.row(principal.teamId, campaignId);
    const { rows, total } = this.repo.executions(campaign.id, { statuses: query.status, unconfirmed: query.unconfirmed }, query.limit, (query.page - 1) * query.limit);
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
