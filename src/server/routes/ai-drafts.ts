import { LineQueue } from "../line-queue.js";
import { ndjsonResponse } from "../ndjson.js";
import type { RouteBindings } from "../route.js";

export const aiDraftRoutes = {
  "campaigns.draft": async ({ services, principal, body, signal, wantsNdjson, log }) => {
    // Checked before any byte is sent: without a model the answer is an ordinary 503, never a stream line.
    services.ai.require();
    if (!wantsNdjson) return services.campaignDrafts.draft(principal, body, { signal });
    const lines = new LineQueue();
    services.campaignDrafts.draft(principal, body, { signal, onProgress: (data) => lines.push({ type: "progress", data }) }).then(
      (data) => lines.push({ type: "complete", data }),
      (err: unknown) => lines.fail(err),
    );
    return ndjsonResponse(lines, { log });
  },
} satisfies Partial<RouteBindings>;
