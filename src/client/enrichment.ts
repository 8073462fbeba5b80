import { EnrichmentRetryResult, type Lead } from "../core/schemas/lead.js";
import { ApiError, type ApiClient } from "./api-client.js";

const PATH = "/api/v1/map-leads/enrichment-retry";

/** Endpoint 2, typed: finish the enrichment a search left pending. */
export class EnrichmentApi {
  constructor(private readonly client: ApiClient) {}

  /** JSON: the re-enriched leads (only those the token covered; merge them by placeId). */
  async retry(token: string, options: { signal?: AbortSignal } = {}): Promise<Lead[]> {
    const result = await this.client.request("POST", PATH, EnrichmentRetryResult, { body: { token }, signal: options.signal });
    return result.leads;
  }

  /**
   * NDJSON: each line as it arrives (progress snapshots, then one complete line). The
   * `complete` and `progress` data are checked against the schema; an `error` line
   * becomes an ApiError like an HTTP error would.
   */
  async *retryStream(token: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<{ type: "progress" | "complete"; data: { leads: Lead[] }; leads: Lead[] }> {
    for await (const line of this.client.stream("POST", PATH, { body: { token }, signal: options.signal })) {
      if (line.type === "error") throw new ApiError(500, line.error, line.code, line as Record<string, unknown>, new Headers());
      const parsed = EnrichmentRetryResult.safeParse(line.data);
      if (!parsed.success) throw new ApiError(200, `unexpected ${line.type} line from the server for ${PATH}`, undefined, {}, new Headers());
      yield { type: line.type, data: parsed.data, leads: parsed.data.leads };
    }
  }
}

/**
 * service-api.md 4.2 rule 5: fold retried leads into the search's by `placeId`, keeping
 * the search's order; leads the retry did not cover stay as they were. For
 * `outreach leads search --complete` (one merged export).
 */
export function mergeRetriedLeads(searchLeads: readonly Lead[], retried: readonly Lead[]): Lead[] {
  const byPlace = new Map(retried.map((lead) => [lead.placeId, lead]));
  return searchLeads.map((lead) => byPlace.get(lead.placeId) ?? lead);
}
