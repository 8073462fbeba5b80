import type { Clock } from "../../core/clock.js";
import { distanceKm } from "../../core/geo.js";
import { toLead } from "../../core/lead-values.js";
import type { Lead } from "../../core/schemas/lead.js";
import { retryAfterSeconds } from "../../core/retry-after.js";
import { ServiceError, serviceFetch } from "../../providers/service-http.js";
import type { CategoryVocabulary } from "../vocabulary/category-vocabulary.js";
import { parseKeywords } from "../search/keywords.js";
import { cursorOffset, ListCache, orderLeads, pageOfList } from "./list-pages.js";
import { osmElementToItem } from "../vocabulary/osm-tags.js";
import { overpassQuery } from "./overpass-query.js";
import type { PlaceSearchPage, PlaceSearchProvider, PlaceSearchRequest, ResolvedPlace } from "../search/provider.js";

export interface OverpassOptions {
  /** The interpreter endpoint (`OUTREACH_OVERPASS_URL`, e.g. https://overpass-api.de/api/interpreter). */
  url: string;
  userAgent: string;
  clock: Clock;
  /** Time limit of one HTTP request; the query's own `[timeout:]` is a little shorter. */
  timeoutMs: number;
  /** How long an answer is reused for the same query (`OUTREACH_OVERPASS_CACHE_SECONDS`). */
  cacheSeconds: number;
  vocabulary: () => CategoryVocabulary;
  /** Longest `Retry-After` worth waiting for inside a search (longer: the source fails now). */
  maxRetryWaitMs?: number;
}

/** An element of Overpass's JSON (`out center tags`): nodes have lat/lon, ways and relations a centre. */
interface OverpassElement {
  type?: string;
  id?: number;
  lat?: number;
  lon?: number;
  center?: { lat?: number; lon?: number };
  tags?: Record<string, string>;
}

/** Elements as Leads by the importer's own mapping (`osmElementToItem`): the same ids and values as an imported extract. */
export function leadsOfElements(elements: readonly OverpassElement[]): Lead[] {
  const leads: Lead[] = [];
  for (const e of elements) {
    if ((e.type !== "node" && e.type !== "way" && e.type !== "relation") || typeof e.id !== "number" || !e.tags) continue;
    const lat = e.lat ?? e.center?.lat;
    const lng = e.lon ?? e.center?.lon;
    if (typeof lat !== "number" || typeof lng !== "number") continue;
    const item = osmElementToItem(e.type, e.id, e.tags, lat, lng);
    if (item.kind !== "place") continue;
    const lead = toLead({ ...item.place, fallbackAddress: null });
    if (lead) leads.push(lead);
  }
  return leads;
}

/**
 * Live OpenStreetMap through the Overpass API as a place source (docs/api.md, "Overpass").
 * A polite client: one request at a time per server, `Retry-After` honoured (a short wait
 * is waited out once; a long one fails the source), a time limit per request, and each
 * query's answer reused for `cacheSeconds`. One query returns the whole circle, ordered by
 * distance; the cursor is an offset into it.
 */
export class OverpassProvider implements PlaceSearchProvider {
  readonly name = "overpass";
  private readonly answers: ListCache<Lead[]>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: OverpassOptions) {
    this.answers = new ListCache(options.cacheSeconds * 1000, () => options.clock.now().getTime());
  }

  async search(request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    const offset = cursorOffset(request.cursor, "p");
    const slots = parseKeywords(request.keywords, this.options.vocabulary());
    if (slots.length === 0) return { leads: [], nextCursor: null };
    const query = overpassQuery(slots, request.center, request.radiusKm, this.queryTimeoutSeconds());
    let leads = this.answers.get(query);
    const fresh = !leads;
    if (!leads) {
      const elements = await this.run(query, request.signal);
      leads = leadsOfElements(elements)
        .map((lead) => ({ lead, d: distanceKm(request.center, lead) }))
        .sort((a, b) => a.d - b.d || a.lead.placeId.localeCompare(b.lead.placeId))
        .map((x) => x.lead);
      this.answers.set(query, leads);
    }
    return { ...pageOfList(orderLeads(leads, request.sort, request.center), offset, "p"), requests: { overpass: fresh ? 1 : 0 } };
  }

  /** An `osm:<type>:<id>` the local index does not hold, looked up live. */
  async resolvePlaceId(placeId: string, signal: AbortSignal): Promise<ResolvedPlace | undefined> {
    const m = /^osm:(node|way|relation):(\d{1,15})$/.exec(placeId);
    if (!m) return undefined;
    const elements = await this.run(`[out:json][timeout:${this.queryTimeoutSeconds()}];\n${m[1]}(${m[2]});\nout center tags;`, signal);
    const e = elements[0];
    const lat = e?.lat ?? e?.center?.lat;
    const lng = e?.lon ?? e?.center?.lon;
    if (typeof lat !== "number" || typeof lng !== "number") return undefined;
    return { center: { lat, lng }, name: e?.tags?.name ?? placeId };
  }

  private queryTimeoutSeconds(): number {
    return Math.max(1, Math.floor(this.options.timeoutMs / 1000) - 2);
  }

  /** One query, after the previous one to this server has finished. */
  private run(query: string, signal: AbortSignal): Promise<OverpassElement[]> {
    const turn = this.queue.then(() => this.post(query, signal, true));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async post(query: string, signal: AbortSignal, mayRetry: boolean): Promise<OverpassElement[]> {
    const response = await serviceFetch("overpass", this.options.url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": this.options.userAgent, Accept: "application/json" },
      body: new URLSearchParams({ data: query }).toString(),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    if (response.status === 429 || response.status === 503) {
      const wait = retryAfterSeconds(response.headers.get("retry-after"));
      await response.body?.cancel();
      if (mayRetry && wait !== undefined && wait * 1000 <= (this.options.maxRetryWaitMs ?? 10_000)) {
        await this.options.clock.sleep(wait * 1000, signal);
        return this.post(query, signal, false);
      }
      throw new ServiceError(`overpass: HTTP ${response.status}, no free slot${wait !== undefined ? ` (retry after ${wait} s)` : ""}`, response.status, wait);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ServiceError(`overpass: HTTP ${response.status}${response.status === 504 ? " (the server is too busy or the query timed out)" : ""}`, response.status);
    }
    const body = (await response.json().catch(() => null)) as { elements?: OverpassElement[]; remark?: string } | null;
    if (!body || !Array.isArray(body.elements)) throw new ServiceError("overpass: the answer is not Overpass JSON");
    // A query that ran out of time or memory still answers 200, with a remark and partial elements.
    if (body.remark && /runtime error|timed out|out of memory/i.test(body.remark)) throw new ServiceError(`overpass: ${body.remark.slice(0, 200)}`);
    return body.elements;
  }
}
