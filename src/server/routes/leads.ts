import { SearchInput, SearchResult } from "../../core/schemas/lead.js";
import { QuotaResponse } from "../../core/schemas/quota.js";
import type { Principal } from "../../services/auth.js";
import type { Services } from "../../services/index.js";
import { ndjsonResponse } from "../ndjson.js";
import { defineRoute } from "../route.js";

/** Coded errors of the lead search carry the caller's quota (2.5) when the caller is known. */
function quotaBody(services: Services, principal: Principal) {
  return { quota: services.quota.current(principal.teamId) };
}

export const leadRoutes = [
  defineRoute({
    method: "POST",
    path: "/api/v1/map-leads/search",
    operationId: "searchLeads",
    summary: "Search local businesses around a place (JSON or NDJSON stream)",
    description:
      "Strict circle (haversine), keywords matched against names and categories, ranked by relevance then distance, pages of at most 20. " +
      "New searches take one unit of the daily quota; following pages (pageToken) are free. " +
      "With `Accept: application/x-ndjson` the answer is a stream of progress lines and one complete or error line.",
    tag: "leads",
    endpoint: 1,
    auth: "user",
    body: SearchInput,
    response: SearchResult,
    ndjson: true,
    errorStyle: "coded",
    errorBody: quotaBody,
    errors: [400, 403, 429, 500],
    handler: async ({ services, principal, body, signal, cutoff, wantsNdjson, log }) => {
      const search = await services.leadSearch.accept(principal, body, signal);
      if (wantsNdjson) {
        return ndjsonResponse(search.run(signal, cutoff), { log, errorExtra: () => quotaBody(services, principal) });
      }
      for await (const event of search.run(signal, cutoff)) if (event.type === "complete") return event.data;
      throw new Error("lead search ended without a result");
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/quota",
    operationId: "getQuota",
    summary: "The active workspace's daily search quota",
    tag: "leads",
    addition: true,
    auth: "user",
    response: QuotaResponse,
    handler: ({ services, principal }) => ({ quota: services.quota.current(principal.teamId) }),
  }),
];
