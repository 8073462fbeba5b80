import { CancelCampaignResponse, ExecutionParams, ExecutionResponse, ResolveExecutionBody } from "../schemas/campaign.js";
import { IdParams } from "../schemas/common.js";
import { defineOperations } from "./operation.js";

/** Additions of sequences (docs/api.md, "Sequences"): stopping a one-time campaign, resolving unconfirmed executions. */
export const campaignSequenceOperations = defineOperations({
  "campaigns.cancel": {
    method: "POST",
    path: "/api/v1/campaigns/:id/cancel",
    operationId: "cancelCampaign",
    summary: "Stop a launched one-time campaign: its pending and queued executions become cancelled",
    description:
      "Every execution not yet handed to the relay (later steps included) becomes `cancelled` and the campaign `cancelled`; a message whose DATA " +
      "has begun (`sending`) finishes, and nothing the relay already has is recalled. Cancelling a cancelled campaign answers 200 with `cancelled: 0`. " +
      "409: a lifetime campaign (pause or archive it), a draft never launched, or a campaign already sent completely.",
    tag: "campaigns",
    addition: true,
    auth: "user",
    params: IdParams,
    response: CancelCampaignResponse,
    errors: [404, 409],
  },
  "campaigns.resolveExecution": {
    method: "POST",
    path: "/api/v1/campaigns/:id/executions/:executionId/resolve",
    operationId: "resolveCampaignExecution",
    summary: "Resolve an unconfirmed execution: resend it, or confirm it arrived",
    description:
      "Only an execution recorded as sent but `unconfirmed` (409 otherwise). `confirm` clears the flag and lets its sequence continue; `resend` " +
      "queues it once more with the same Message-ID (the recipient may get it twice: the user's explicit choice). 409 for `resend` when the " +
      "campaign no longer sends or the contact's sequence was stopped.",
    tag: "campaigns",
    addition: true,
    auth: "user",
    idempotent: true,
    params: ExecutionParams,
    body: ResolveExecutionBody,
    response: ExecutionResponse,
    errors: [404, 409],
  },
});
