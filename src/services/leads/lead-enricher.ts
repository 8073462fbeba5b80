import type { Lead } from "../../core/schemas/lead.js";

/** What website enrichment hands back to the lead search. */
export interface EnrichmentRun {
  /** The same leads in the same order: enriched where finished, `enrichmentPending: true` where not. */
  leads: Lead[];
  /** A retry token covering (up to 20 of) the pending leads, or null when none is pending. */
  retryToken: string | null;
}

/**
 * The seam between the lead search and website enrichment. The search calls it with a
 * page of leads; enrichment runs concurrently within its time budget and reports each
 * finished lead through `onProgress` (the search turns that into NDJSON progress lines).
 */
export interface LeadEnricher {
  enrichForSearch(
    teamId: string,
    leads: Lead[],
    /** `cutoff` ends enrichment as if its budget ran out (the server is shutting down); `refresh` crawls again instead of answering from the cache. */
    options: { signal: AbortSignal; cutoff?: AbortSignal; refresh?: boolean; onProgress?: (snapshot: Lead[]) => void },
  ): Promise<EnrichmentRun>;
}
