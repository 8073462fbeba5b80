import { circleBoxes, distanceKm, type LatLng } from "../../core/geo.js";
import { toLead } from "../../core/lead-bounds.js";
import type { Lead } from "../../core/schemas/lead.js";
import { normaliseKey } from "../../core/text.js";
import type { Db } from "../../store/db.js";
import { PlaceSearchRepo, type Candidate, type PlaceRow } from "../../store/place-search.js";
import { ftsQuery, keywordTerms, relevanceScorer } from "./keywords.js";
import { PAGE_SIZE, type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest, type ResolvedPlace } from "./provider.js";

/**
 * Relative cost of one row in each plan, measured on the 1M-place synthetic index of
 * bench/search.js: the box-first plan reads and keyword-tests every place in the box
 * (about 40 µs a row there), the FTS-first plan pays a doclist step plus a row lookup per
 * full-text match in the whole index (about 4 µs), and tests only the matches in the box.
 * So a box row costs about ten match rows.
 */
const BOX_ROW_COST = 10;

/** Two records of one business from two sources: same normalised name within this distance. */
const DUPLICATE_KM = 0.1;

/** How the local provider's cursor looks: the number of (deduplicated) leads already returned. */
function parseCursor(cursor: string | null): number {
  if (cursor === null) return 0;
  const m = /^o:(\d{1,7})$/.exec(cursor);
  if (!m) throw new Error(`malformed local cursor ${JSON.stringify(cursor)}`);
  return Number(m[1]);
}

interface Ranked {
  id: number;
  score: number;
  distanceKm: number;
}

export type QueryPlan = "fts-first" | "box-first" | "cached";

/**
 * Every match of one keyword set in the whole index, with its relevance, as flat arrays:
 * 20 bytes a match. A query then only scans coordinates, which takes well under a
 * millisecond even for "restaurant" across a million places.
 */
interface MatchList {
  ids: Int32Array;
  lat: Float64Array;
  lng: Float64Array;
  score: Float32Array;
}

/** Upper bound on matches kept in memory over all cached keyword sets (≈ 30 MB). */
const MAX_CACHED_MATCHES = 1_500_000;

/**
 * The embedded provider: searches the local places index (imported OSM/Overture/CSV data).
 * Each page recomputes the ranked list (a few milliseconds) instead of keeping state, so
 * the cursor is just an offset and any server process can answer any page.
 */
export class LocalPlaceProvider implements PlaceSearchProvider {
  readonly name = "local";
  private readonly repo: PlaceSearchRepo;
  /** The plan of the last search (tests and the bench look at it). */
  lastPlan: QueryPlan | undefined;
  /** Match lists by keyword set, least recently used first (a Map keeps insertion order). */
  private readonly cache = new Map<string, MatchList>();
  private cachedMatches = 0;
  /** Keyword sets answered box-first since the last index change: the second time, their match list is built. */
  private readonly boxOnly = new Set<string>();
  private signature = "";

  constructor(db: Db) {
    this.repo = new PlaceSearchRepo(db);
  }

  async search(request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    request.signal.throwIfAborted();
    const offset = parseCursor(request.cursor);
    const ranked = this.rankedMatches(request.center, request.radiusKm, request.keywords);
    request.signal.throwIfAborted();
    const { leads, consumed } = this.pageOf(ranked, offset);
    const hasMore = consumed < ranked.length;
    return { leads, nextCursor: hasMore ? `o:${offset + leads.length}` : null };
  }

  async resolvePlaceId(placeId: string): Promise<ResolvedPlace | undefined> {
    const row = this.repo.byPlaceId(placeId);
    return row ? { center: { lat: row.lat, lng: row.lng }, name: row.name } : undefined;
  }

  /**
   * Every match inside the strict circle, best first: relevance (BM25-shaped, name and
   * category weighted), then distance, then the row id so equal places always come in
   * one order.
   */
  rankedMatches(center: LatLng, radiusKm: number, keywords: string): Ranked[] {
    const terms = keywordTerms(keywords);
    if (terms.length === 0) return [];
    const signature = this.repo.indexSignature();
    if (signature !== this.signature) {
      this.cache.clear();
      this.boxOnly.clear();
      this.cachedMatches = 0;
      this.signature = signature;
    }
    const key = terms.map((t) => t.word).join(" ");
    const boxes = circleBoxes(center, radiusKm);
    const cached = this.cache.get(key);
    let list: MatchList;
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      this.lastPlan = "cached";
      list = cached;
    } else {
      const match = ftsQuery(terms);
      // A keyword searched again is worth its match list even where the box would be cheaper once.
      const plan = this.boxOnly.has(key) ? "fts-first" : this.choosePlan(terms.map((t) => t.prefixes), boxes);
      this.lastPlan = plan;
      const score = relevanceScorer(terms);
      if (plan === "box-first") {
        // A small box: cheaper to test its places than to list every match.
        this.boxOnly.add(key);
        if (this.boxOnly.size > 10_000) this.boxOnly.clear();
        list = toMatchList(this.repo.boxCandidates(boxes), score);
      } else {
        list = toMatchList(this.repo.allMatches(match), score);
        this.remember(key, list);
      }
    }
    return rankWithin(list, center, radiusKm);
  }

  /** Keep a match list, evicting the least recently used ones beyond the memory bound. */
  private remember(key: string, list: MatchList): void {
    if (list.ids.length > MAX_CACHED_MATCHES) return;
    this.cache.set(key, list);
    this.cachedMatches += list.ids.length;
    for (const [oldKey, old] of this.cache) {
      if (this.cachedMatches <= MAX_CACHED_MATCHES) break;
      this.cache.delete(oldKey);
      this.cachedMatches -= old.ids.length;
    }
  }

  /**
   * Pick the cheaper plan from two estimates that cost almost nothing: the FTS
   * vocabulary's document counts (the rarest ANDed keyword bounds the matches), and the
   * R*Tree count of the box, which stops as soon as it exceeds what the FTS side costs.
   */
  choosePlan(prefixGroups: string[][], boxes: ReturnType<typeof circleBoxes>): QueryPlan {
    const matches = Math.min(...prefixGroups.map((prefixes) => prefixes.reduce((n, p) => n + this.repo.documentsWithPrefix(p), 0)));
    const budget = Math.floor(matches / BOX_ROW_COST);
    const inBox = this.repo.countInBox(boxes, budget + 1);
    return inBox <= budget ? "box-first" : "fts-first";
  }

  /**
   * Leads `offset .. offset+20` of the deduplicated ranking. Rows are read in chunks from
   * the top so that a duplicate is always dropped the same way, whichever page it falls on.
   */
  private pageOf(ranked: Ranked[], offset: number): { leads: Lead[]; consumed: number } {
    const kept: Lead[] = [];
    const seen = new Map<string, LatLng[]>();
    let consumed = 0;
    const want = offset + PAGE_SIZE;
    while (kept.length < want && consumed < ranked.length) {
      const chunk = ranked.slice(consumed, consumed + Math.max(want - kept.length + 8, 32));
      const rows = new Map(this.repo.rowsByIds(chunk.map((c) => c.id)).map((r) => [r.id, r]));
      for (const c of chunk) {
        consumed++;
        const row = rows.get(c.id);
        const lead = row ? leadFromRow(row) : undefined;
        if (!lead) continue;
        const key = normaliseKey(lead.name);
        const points = seen.get(key) ?? [];
        if (points.some((p) => distanceKm(p, lead) <= DUPLICATE_KM)) continue;
        points.push({ lat: lead.lat, lng: lead.lng });
        seen.set(key, points);
        kept.push(lead);
        if (kept.length === want) break;
      }
    }
    // Anything left unread may still hold leads that are not duplicates.
    return { leads: kept.slice(offset), consumed };
  }
}

/** Keep the candidates that match, with their relevance. */
function toMatchList(candidates: Iterable<Candidate>, score: (c: Candidate) => number | undefined): MatchList {
  const ids: number[] = [];
  const lat: number[] = [];
  const lng: number[] = [];
  const scores: number[] = [];
  for (const c of candidates) {
    const s = score(c);
    if (s === undefined) continue;
    ids.push(c.id);
    lat.push(c.lat);
    lng.push(c.lng);
    scores.push(s);
  }
  return { ids: Int32Array.from(ids), lat: Float64Array.from(lat), lng: Float64Array.from(lng), score: Float32Array.from(scores) };
}

/** The matches inside the circle, best first (see `rankedMatches`). */
function rankWithin(list: MatchList, center: LatLng, radiusKm: number): Ranked[] {
  // One box, or two across the antimeridian; they share the latitude band. Tested inline:
  // this loop runs over every match of a common keyword.
  const [first, second] = circleBoxes(center, radiusKm);
  const { minLat, maxLat } = first!;
  const ranked: Ranked[] = [];
  const point = { lat: 0, lng: 0 };
  for (let i = 0; i < list.ids.length; i++) {
    const lat = list.lat[i]!;
    if (lat < minLat || lat > maxLat) continue;
    const lng = list.lng[i]!;
    if ((lng < first!.minLng || lng > first!.maxLng) && (!second || lng < second.minLng || lng > second.maxLng)) continue;
    point.lat = lat;
    point.lng = lng;
    const d = distanceKm(center, point);
    if (d <= radiusKm) ranked.push({ id: list.ids[i]!, score: list.score[i]!, distanceKm: d });
  }
  ranked.sort((a, b) => b.score - a.score || a.distanceKm - b.distanceKm || a.id - b.id);
  return ranked;
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A `places` row as a Lead within every 2.3 bound. */
export function leadFromRow(row: PlaceRow): Lead | undefined {
  return toLead({
    placeId: row.place_id,
    name: row.name,
    address: row.address,
    fallbackAddress: [row.postcode, row.city, row.country].filter(Boolean).join(" "),
    lat: row.lat,
    lng: row.lng,
    website: row.website,
    phone: row.phone,
    email: row.email,
    socials: parseJson(row.socials),
    rating: row.rating,
    categories: parseJson(row.categories),
  });
}
