import type { Lead } from "../../core/schemas/lead.js";
import { withSources } from "../../core/lead-values.js";
import { ServiceError } from "../../providers/service-http.js";
import { mergeRankedLists } from "./lead-merge.js";
import { cursorOffset, ListCache, orderLeads, pageOfList } from "./list-pages.js";
import { type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest, type ResolvedPlace } from "../search/provider.js";

/** Leads read from one source for a merged search: its first ten pages. */
export const MAX_LEADS_PER_SOURCE = 200;
/** How long a merged list stays in memory for its next pages. */
const MERGED_TTL_MS = 10 * 60 * 1000;

interface MergedList {
  leads: Lead[];
  warnings: string[];
  /** A source's first page said the local index is empty. */
  indexEmpty: boolean;
}

/**
 * One search over several place sources (docs/api.md, "Sources"). With one source the
 * page is that source's own (its cursor passes through). With several, each source's
 * ranked list is read (up to 200 leads each), the lists are merged and deduplicated
 * (`lead-merge.ts`), and pages are cut from the merged list, which is kept for ten minutes
 * (recomputed on a miss: the remote sources answer from their own caches). A source that
 * fails while another answers becomes a warning; when none answers, the first failure is
 * thrown (the lead search's `provider_error` with a refund).
 */
export class PlaceSources implements PlaceSearchProvider {
  readonly name = "sources";
  private readonly merged: ListCache<MergedList>;

  constructor(
    private readonly providers: ReadonlyMap<string, PlaceSearchProvider>,
    /** The sources of a search that names none (`OUTREACH_PLACES_SOURCES`). */
    readonly defaults: readonly string[],
    now: () => number = Date.now,
  ) {
    this.merged = new ListCache(MERGED_TTL_MS, now);
  }

  /** What each source loads before a server listens (the local index's category vocabulary). */
  prepare(): void {
    for (const provider of this.providers.values()) provider.prepare?.();
  }

  /** The configured sources' names. */
  get names(): string[] {
    return [...this.providers.keys()];
  }

  has(name: string): boolean {
    return this.providers.has(name);
  }

  async search(request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    const names = request.sources?.length ? request.sources : this.defaults;
    if (names.length === 1) return this.single(names[0]!, request);
    const offset = cursorOffset(request.cursor, "m");
    const list = await this.mergedList(names, request);
    return {
      ...pageOfList(orderLeads(list.leads, request.sort, request.center), offset, "m"),
      ...(offset === 0 && list.warnings.length ? { warnings: list.warnings } : {}),
      ...(offset === 0 && list.indexEmpty ? { indexEmpty: true } : {}),
      ...(offset === 0 ? { requests: list.requests } : {}),
    };
  }

  /**
   * A place ID's point, from the source its prefix names (`google:` → Google, `osm:` → local
   * first, then Overpass). Aborted, it rejects with the signal's reason, also when the source
   * asked last did not listen: no further source is asked, no answer is given.
   */
  async resolvePlaceId(placeId: string, signal: AbortSignal): Promise<ResolvedPlace | undefined> {
    for (const provider of this.providers.values()) {
      signal.throwIfAborted();
      const place = await provider.resolvePlaceId(placeId, signal);
      signal.throwIfAborted();
      if (place) return place;
    }
    return undefined;
  }

  private provider(name: string): PlaceSearchProvider {
    const provider = this.providers.get(name);
    if (!provider) throw new Error(`place source ${name} is not configured`);
    return provider;
  }

  private async single(name: string, request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    const page = await this.provider(name).search(request);
    return { ...page, leads: page.leads.map((lead) => withSources(lead, [name])) };
  }

  private async mergedList(names: readonly string[], request: PlaceSearchRequest): Promise<MergedList & { requests: Record<string, number> }> {
    const key = JSON.stringify([names, request.center.lat, request.center.lng, request.radiusKm, request.keywords]);
    const cached = this.merged.get(key);
    if (cached) return { ...cached, requests: {} };
    const requests: Record<string, number> = {};
    const outcomes = await Promise.allSettled(names.map((name) => this.readAll(name, request, requests)));
    request.signal.throwIfAborted();
    const warnings: string[] = [];
    const failures: string[] = [];
    const lists: Lead[][] = [];
    let indexEmpty = false;
    outcomes.forEach((outcome, i) => {
      if (outcome.status === "fulfilled") {
        lists.push(outcome.value.leads);
        warnings.push(...outcome.value.warnings);
        indexEmpty ||= outcome.value.indexEmpty;
        return;
      }
      // An outside service's failure says what happened; any other error only that the source failed.
      const reason = outcome.reason instanceof ServiceError ? outcome.reason.message : `${names[i]}: failed`;
      failures.push(reason);
      warnings.push(`${reason}; results are from the other sources`);
    });
    if (lists.length === 0) throw new ServiceError(failures.join("; "));
    const list: MergedList = { leads: mergeRankedLists(lists), warnings, indexEmpty };
    this.merged.set(key, list);
    return { ...list, requests };
  }

  /** One source's ranked leads, page after page, up to the cap. */
  private async readAll(name: string, request: PlaceSearchRequest, requests: Record<string, number>): Promise<{ leads: Lead[]; warnings: string[]; indexEmpty: boolean }> {
    const provider = this.provider(name);
    const leads: Lead[] = [];
    const warnings: string[] = [];
    let indexEmpty = false;
    let cursor: string | null = null;
    do {
      const page: PlaceSearchPage = await provider.search({ ...request, cursor, sources: undefined });
      for (const lead of page.leads) leads.push(withSources(lead, [name]));
      warnings.push(...(page.warnings ?? []));
      indexEmpty ||= page.indexEmpty === true;
      for (const [source, n] of Object.entries(page.requests ?? {})) requests[source] = (requests[source] ?? 0) + n;
      cursor = page.nextCursor;
    } while (cursor !== null && leads.length < MAX_LEADS_PER_SOURCE);
    return { leads: leads.slice(0, MAX_LEADS_PER_SOURCE), warnings, indexEmpty };
  }
}
