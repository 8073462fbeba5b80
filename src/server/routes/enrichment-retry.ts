import { EnrichmentRetryInput, EnrichmentRetryResult } from "../../core/schemas/lead.js";
import { LineQueue } from "../line-queue.js";
import { ndjsonResponse } from "../ndjson.js";
import { defineRoute } from "../route.js";

export const enrichmentRetryRoutes = [
  defineRoute({
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
    ndjson: true,
    errorStyle: "coded",
    // The retry consumes no quota, but its errors report it like the search's do (2.5).
    errorBody: (services, principal) => ({ quota: services.quota.current(principal.teamId) }),
    errors: [404],
    handler: async ({ services, principal, body, signal, cutoff, wantsNdjson, log }) => {
      // Redeemed before any byte is sent: a bad token is an ordinary 404, never a stream line.
      const leads = services.enrichment.redeemRetryToken(principal.teamId!, body.token);
      if (!wantsNdjson) return { leads: await services.enrichment.enrichRedeemed(leads, { signal, cutoff }) };
      const lines = new LineQueue();
      services.enrichment
        .enrichRedeemed(leads, { signal, cutoff, onProgress: (snapshot) => lines.push({ type: "progress", data: { leads: snapshot } }) })
        .then(
          (done) => lines.push({ type: "complete", data: { leads: done } }),
          (err: unknown) => lines.fail(err),
        );
      return ndjsonResponse(lines, {
        log,
        errorExtra: () => ({ quota: services.quota.current(principal.teamId) }),
      });
    },
  }),
];
