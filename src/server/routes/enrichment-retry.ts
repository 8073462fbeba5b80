import { EnrichmentRetryInput, EnrichmentRetryResult } from "../../core/schemas/lead.js";
import { ndjsonResponse, type StreamLine } from "../ndjson.js";
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
    // TODO(merge): quota — return `{ quota: services.quota.snapshot(principal.teamId) }` once the quota service lands.
    errorBody: () => ({}),
    errors: [404],
    handler: async ({ services, principal, body, signal, wantsNdjson }) => {
      // Redeemed before any byte is sent: a bad token is an ordinary 404, never a stream line.
      const leads = services.enrichment.redeemRetryToken(principal.teamId!, body.token);
      if (!wantsNdjson) return { leads: await services.enrichment.enrichRedeemed(leads, { signal }) };
      const lines = new LineQueue();
      services.enrichment
        .enrichRedeemed(leads, { signal, onProgress: (snapshot) => lines.push({ type: "progress", data: { leads: snapshot } }) })
        .then(
          (done) => lines.push({ type: "complete", data: { leads: done } }),
          (err: unknown) => lines.fail(err),
        );
      return ndjsonResponse(lines, { log: (line) => process.stderr.write(line + "\n") });
    },
  }),
];

/** Lines produced by callbacks, consumed by the NDJSON writer as an async iterable. */
class LineQueue implements AsyncIterable<StreamLine> {
  private readonly items: StreamLine[] = [];
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;
  push(line: StreamLine): void {
    this.items.push(line);
    this.wake?.();
  }

  fail(err: unknown): void {
    this.failed = true;
    this.error = err;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamLine> {
    for (;;) {
      const next = this.items.shift();
      if (next) {
        yield next;
        if (next.type !== "progress") return;
        continue;
      }
      if (this.failed) throw this.error;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
