import { AiProgress, DraftBody, DraftResponse, ListOpenersQuery, OpenerList, OpenerParams, OpenerResponse, OpenersBody, OpenersResult, SetOpenerBody } from "../schemas/ai-drafts.js";
import { IdParams } from "../schemas/common.js";
import { defineOperations } from "./operation.js";

/** Additions of AI drafts (docs/api.md, "AI drafts"). */
export const aiDraftOperations = defineOperations({
  "campaigns.draft": {
    method: "POST",
    path: "/api/v1/campaigns/drafts",
    operationId: "draftCampaign",
    summary: "Write a campaign's subject, body and follow-ups with the configured AI model (JSON or NDJSON stream)",
    description:
      "The prompt holds the brand settings, `brandDesignMarkdown` as the style guide, the language, the allowed Liquid variables and the facts " +
      "(name, description, tags) of up to 5 active contacts with any of `tags`. The answer is checked: valid Liquid over the allowed variables, " +
      "no links but the brand's `websiteUrl` and `{{ unsubscribeUrl }}`, the campaign length bounds, follow-up delays PT1M..P60D; one repair " +
      "round sends the exact problem back to the model, then 502 `provider_error` naming it. With `save`, a draft one-time campaign is created. " +
      "503 `ai_not_configured` when OUTREACH_AI_URL or OUTREACH_AI_MODEL is unset.",
    tag: "campaigns",
    addition: true,
    auth: "user",
    body: DraftBody,
    response: DraftResponse,
    stream: { progress: AiProgress },
    errorStyle: "coded",
    errors: [400, 502, 503],
  },
  "campaigns.generateOpeners": {
    method: "POST",
    path: "/api/v1/campaigns/:id/openers",
    operationId: "generateOpeners",
    summary: "Write `{{ contact.opener }}` for each selected contact with the AI model (JSON or NDJSON stream)",
    description:
      "For each contact with any of `tags` (all when none) and one of `statuses` (default active): one sentence from that contact's own facts " +
      "(name, description, tags), one request per contact carrying only that contact's facts, at most OUTREACH_AI_CONCURRENCY in flight. " +
      "Checked: one sentence, at most 300 characters, no link, no Liquid; one repair round, then the contact is listed in `failed` and nothing " +
      "is saved for it. An opener already there is replaced. With `Accept: application/x-ndjson`, a progress line per contact.",
    tag: "campaigns",
    addition: true,
    auth: "user",
    params: IdParams,
    body: OpenersBody,
    response: OpenersResult,
    stream: { progress: AiProgress },
    errorStyle: "coded",
    errors: [400, 404, 502, 503],
  },
  "campaigns.listOpeners": {
    method: "GET",
    path: "/api/v1/campaigns/:id/openers",
    operationId: "listOpeners",
    summary: "List a campaign's openers, oldest first",
    tag: "campaigns",
    addition: true,
    auth: "user",
    params: IdParams,
    query: ListOpenersQuery,
    response: OpenerList,
    errors: [404],
  },
  "campaigns.setOpener": {
    method: "PATCH",
    path: "/api/v1/campaigns/:id/openers/:contactId",
    operationId: "setOpener",
    summary: "Set or edit one contact's opener",
    description: "Checked like a generated one (one sentence, at most 300 characters, no link, no Liquid): 400 naming the problem.",
    tag: "campaigns",
    addition: true,
    auth: "user",
    params: OpenerParams,
    body: SetOpenerBody,
    response: OpenerResponse,
    errors: [400, 404],
  },
});
