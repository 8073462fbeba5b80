import { EnrichmentRetryInput, EnrichmentRetryResult, SearchInput, SearchProgress, SearchResult } from "../schemas/lead.js";
import { QuotaResponse } from "../schemas/quota.js";
import { defineOperations } from "./operation.js";

export const leadOperations = defineOperations({
  "leads.search": {
    method: "POST",
    path: "/api/v1/map-leads/search",
    operationId: "searchLeads",
    summary: "Search local businesses around a place (JSON or NDJSON stream)",
    description:
      "Strict circle (haversine), keywords matched against names and categories in any language, ranked by relevance then distance (or by `sort`), pages of at most 20. " +
      "New searches take one unit of the daily quota; following pages (pageToken) are free. " +
      "With `Accept: application/x-ndjson` the answer is a stream of progress lines and one complete or error line.",
    tag: "leads",
    endpoint: 1,
    auth: "user",
    body: SearchInput,
    response: SearchResult,
    stream: { progress: SearchProgress },
    errorStyle: "coded",
    errors: [400, 403, 429, 500],
  },
  "leads.enrichmentRetry": {
    method: "POST",
    path: "/api/v1/map-leads/enrichment-retry",
    operationId: "retryEnrichment",
    summary: "Finish website enrichment of the leads a search left pending",
    description:
      "Redeems the search's `enrichmentRetryToken` (UUID, single use, bound to the workspace, 15 minutes; consumed when the retry begins) and enriches the up to 20 pending leads it covers. Returns only those leads, each with `enrichmentPending: false` even when no email was found; the client merges them by `placeId`. Consumes no search quota. With `Accept: application/x-ndjson` a `progress` line follows each finished lead and one `complete` line ends the stream. Unknown, used, expired and other workspaces' tokens all answer 404 `retry_token_invalid`.",
    tag: "leads",
    endpoint: 2,
    auth: "user",
    body: EnrichmentRetryInput,
    response: EnrichmentRetryResult,
    stream: { progress: EnrichmentRetryResult },
    errorStyle: "coded",
    errors: [404],
  },
  "leads.quota": {
    method: "GET",
    path: "/api/v1/quota",
    operationId: "getQuota",
    summary: "The active workspace's daily search quota",
    tag: "leads",
    addition: true,
    auth: "user",
    response: QuotaResponse,
  },
});
