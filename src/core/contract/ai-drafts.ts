import { AiProgress, DraftBody, DraftResponse } from "../schemas/ai-drafts.js";
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
});
