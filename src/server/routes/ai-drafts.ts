import type { AiProgress } from "../../core/schemas/ai-drafts.js";
import { LineQueue } from "../line-queue.js";
import { ndjsonResponse } from "../ndjson.js";
import type { Logger } from "../errors.js";
import type { RouteBindings } from "../route.js";

/** The result as JSON, or as NDJSON progress lines then the result when the client asked for a stream. */
async function jsonOrStream<T>(wantsNdjson: boolean, log: Logger, run: (onProgress?: (data: AiProgress) => void) => Promise<T>): Promise<T | Response> {
  if (!wantsNdjson) return run();
  const lines = new LineQueue();
  run((data) => lines.push({ type: "progress", data })).then(
    (data) => lines.push({ type: "complete", data }),
    (err: unknown) => lines.fail(err),
  );
  return ndjsonResponse(lines, { log });
}

export const aiDraftRoutes = {
  "campaigns.draft": async ({ services, principal, body, signal, wantsNdjson, log }) => {
    // Checked before any byte is sent: without a model the answer is an ordinary 503, never a stream line.
    services.ai.require();
    return jsonOrStream(wantsNdjson, log, (onProgress) => services.campaignDrafts.draft(principal, body, { signal, onProgress }));
  },
  "campaigns.generateOpeners": async ({ services, principal, params, body, signal, wantsNdjson, log }) => {
    services.ai.require();
    services.campaigns.get(principal, params.id);
    return jsonOrStream(wantsNdjson, log, (onProgress) => services.openers.generate(principal, params.id, body, { signal, onProgress }));
  },
  "campaigns.listOpeners": ({ services, principal, params, query }) => services.openers.list(principal, params.id, query),
  "campaigns.setOpener": ({ services, principal, params, body }) => ({ opener: services.openers.set(principal, params.id, params.contactId, body.opener) }),
} satisfies Partial<RouteBindings>;
