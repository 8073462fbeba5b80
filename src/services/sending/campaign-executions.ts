import type { Clock } from "../../core/clock.js";
import { conflict, notFound } from "../../core/errors.js";
import type { Campaign, CampaignExecution, ResolveExecutionBody } from "../../core/schemas/campaign.js";
import { CampaignsRepo, type CampaignRow } from "../../store/campaigns.js";
import type { Db } from "../../store/db.js";
import { isSequenceStopped } from "../../store/sequence-stops.js";
import { SequenceStepsRepo } from "../../store/sequence-steps.js";
import type { Principal } from "../access/auth.js";
import { toCampaign, toExecution } from "./campaigns.js";
import type { SequenceSteps } from "./sequence-steps.js";

const RESEND_NOTE = "resent at the user's request: the earlier attempt was unconfirmed (the relay may have it too)";

/**
 * Stopping a one-time campaign and resolving unconfirmed executions (docs/api.md,
 * "Sequences: cancel and resolve"). Each is one immediate transaction with guarded UPDATEs.
 */
export class CampaignExecutionService {
  private readonly campaigns: CampaignsRepo;
  private readonly steps: SequenceStepsRepo;

  constructor(private readonly deps: { db: Db; clock: Clock; sequences: SequenceSteps }) {
    this.campaigns = new CampaignsRepo(deps.db);
    this.steps = new SequenceStepsRepo(deps.db);
  }

  private row(teamId: string, id: string): CampaignRow {
    const row = this.campaigns.byId(teamId, id);
    if (!row) throw notFound(`campaign ${id} not found`);
    return row;
  }

  /**
   * `POST …/cancel`: a launched one-time campaign stops. Pending and queued executions
   * (every later step included) become `cancelled`; one whose DATA has begun (`sending`)
   * finishes and grows no next step. Cancelling a cancelled campaign answers it again.
   */
  cancel(principal: Principal, id: string): { campaign: Campaign; cancelled: number } {
    return this.deps.db
      .transaction(() => {
        const current = this.row(principal.teamId, id);
        if (current.type !== "one-time") {
          throw conflict(`campaign ${id} is a lifetime campaign: pause or archive it (PATCH …/lifecycle) instead of cancelling`);
        }
        if (current.status === "cancelled") return { campaign: toCampaign(current), cancelled: 0 };
        if (!current.launched_at) throw conflict(`campaign ${id} is a draft that was never launched: there is nothing to cancel (edit it, or leave it unlaunched)`);
        const stamp = this.deps.clock.now().toISOString();
        const cancelledCampaign = this.steps.cancelOneTime(principal.teamId, id, stamp);
        if (!cancelledCampaign) throw conflict(`campaign ${id} is ${current.status}: every message was already sent, nothing is left to cancel`);
        const cancelled = this.campaigns.cancelOpenExecutions(id, stamp);
        return { campaign: toCampaign(cancelledCampaign), cancelled };
      })
      .immediate();
  }

  /**
   * `POST …/executions/{executionId}/resolve`: only an `unconfirmed` execution (409
   * otherwise). `confirm`: it arrived; the flag is cleared and its next step is created.
   * `resend`: the user chose to send it once more (it may arrive twice: the one exception
   * to "never twice", made explicitly); pending again, due now, same Message-ID.
   */
  resolve(principal: Principal, campaignId: string, executionId: string, body: ResolveExecutionBody): CampaignExecution {
    return this.deps.db
      .transaction(() => {
        const campaign = this.row(principal.teamId, campaignId);
        const execution = this.steps.execution(campaign.id, executionId);
        if (!execution) throw notFound(`execution ${executionId} not found in campaign ${campaignId}`);
        if (execution.status !== "sent" || execution.unconfirmed !== 1) {
          throw conflict(`execution ${executionId} is ${execution.status}${execution.status === "sent" ? " and confirmed" : ""}: only an unconfirmed execution can be resolved`);
        }
        const stamp = this.deps.clock.now().toISOString();
        if (body.action === "confirm") {
          this.steps.confirm(executionId, stamp);
          this.deps.sequences.afterSent(executionId, stamp);
        } else {
          const running = campaign.type === "lifetime" ? campaign.status === "active" : campaign.status === "sending" || campaign.status === "sent";
          if (!running) throw conflict(`campaign ${campaignId} is ${campaign.status}: nothing is sent from it, so nothing can be resent`);
          if (isSequenceStopped(this.deps.db, campaign.id, execution.contact_id)) {
            throw conflict(`the sequence of contact ${execution.contact_id} in campaign ${campaignId} was stopped (a reply, a bounce or an unsubscribe): it is not resent`);
          }
          this.steps.resend(executionId, RESEND_NOTE, stamp);
          this.steps.reopen(campaign.id, stamp);
        }
        return toExecution(this.steps.execution(campaign.id, executionId)!);
      })
      .immediate();
  }
}
