import type { Principal } from "../../services/access/auth.js";
import type { Services } from "../../services/index.js";
import { LineQueue } from "../line-queue.js";
import { ndjsonResponse } from "../ndjson.js";
import type { RouteBindings } from "../route.js";

/** Coded errors of the lead search and the enrichment retry carry the caller's quota when the caller is known. */
function quotaBody(services: Services, principal: Principal) {
  return { quota: services.quota.current(principal.teamId) };
}

export const leadRoutes = {
  "leads.search": {
    errorBody: quotaBody,
    handler: async ({ services, principal, body, signal, cutoff, wantsNdjson, log }) => {
      const search = await services.leadSearch.accept(principal, body, signal);
      if (wantsNdjson) return ndjsonResponse(search.run(signal, cutoff), { log, signal, errorExtra: () => quotaBody(services, principal) });
      for await (const event of search.run(signal, cutoff)) if (event.type === "complete") return event.data;
      throw new Error("lead search ended without a result");
    },
  },
  "leads.enrichmentRetry": {
    // The retry consumes no quota, but its errors report it like the search's do.
    errorBody: quotaBody,
    handler: async ({ services, principal, body, signal, cutoff, wantsNdjson, log }) => {
      // Redeemed before any byte is sent: a bad token is an ordinary 404, never a stream line.
      const leads = services.enrichment.redeemRetryToken(principal.teamId, body.token);
      if (!wantsNdjson) return { leads: await services.enrichment.enrichRedeemed(leads, { signal, cutoff }) };
      const lines = new LineQueue();
      services.enrichment
        .enrichRedeemed(leads, { signal, cutoff, onProgress: (snapshot) => lines.push({ type: "progress", data: { leads: snapshot } }) })
        .then(
          (done) => lines.push({ type: "complete", data: { leads: done } }),
          (err: unknown) => lines.fail(err),
        );
      return ndjsonResponse(lines, { log, signal, errorExtra: () => quotaBody(services, principal) });
    },
  },
  "leads.quota": ({ services, principal }) => ({ quota: services.quota.current(principal.teamId) }),
} satisfies Partial<RouteBindings>;
