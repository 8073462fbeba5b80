import { circleBoxes, distanceKm, type LatLng } from "../../core/geo.js";
import { toLead } from "../../core/lead-values.js";
import type { Lead } from "../../core/schemas/lead.js";
import { normaliseKey } from "../../core/text.js";
import type { Db } from "../../store/db.js";
import { PlaceSearchRepo, type PlaceRow } from "../../store/place-search.js";
import { cellRanges, cellsOfCircle } from "../../core/geo-grid.js";
import { PlaceTermsRepo, type TermHit } from "../../store/place-terms.js";
import { PlacePostingsRepo, POSTING_STRIDE, type PostingChunk } from "../../store/place-postings.js";
import { keywordTerms, relevanceScorer, type KeywordTerm } from "./keywords.js";
import { TermMatches, type Ranked } from "./term-matches.js";
import { PAGE_SIZE, type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest, type ResolvedPlace } from "./provider.js";

/**
 * Above this many grid cells (a circle reaching a pole, where a box spans every
 * longitude), the search reads the R*Tree box instead: there are few places there, and
 * listing hundreds of thousands of cells would cost more than the places.
 */
const MAX_CELLS = 60_000;

/**
 * When a circle's words are read by (word, cell range) instead of cell by cell: above this
 * many cells (≈ an 11 km circle; below, both cost about the same), and when words ×
 * ranges × this factor stay under the cell count (each range costs a seek like a cell,
 * plus the lookups of its non-empty cells). At 1M places, 100 km: ≈ 30 → 5–10 ms of SQLite.
 */
const TERM_FIRST_MIN_CELLS = 400;
const TERM_FIRST_FACTOR = 8;

/**
 * How a keyword prefix's postings are read in a circle of `cells` fresh cells that make
 * `ranges` runs of consecutive cells, when the prefix has `words` words: cell by cell, or
 * per word and range.
 */
export function termReadOf(cells: number, ranges: number, words: number): "cells" | "ranges" {
  return cells > TERM_FIRST_MIN_CELLS && words * ranges * TERM_FIRST_FACTOR < cells ? "ranges" : "cells";
}

/** What a search on an index with nothing imported says (the result's `warnings`). */
export const EMPTY_INDEX_WARNING =
  "local: the places index is empty; import the bundled Monaco sample with `outreach places import --sample`, or your region with `outreach places download <region> --import` (docs/data.md)";

/** Two records of one business from two sources: same normalised name within this distance. */
const DUPLICATE_KM = 0.1;

/** How the local provider's cursor looks: the number of (deduplicated) leads already returned. */
function parseCursor(cursor: string | null): number {
  if (cursor === null) return 0;
  const m = /^o:(\d{1,7})$/.exec(cursor);
  if (!m) throw new Error(`malformed local cursor ${JSON.stringify(cursor)}`);
  return Number(m[1]);
}

/**
 * The embedded provider: searches the local places index (imported OSM/Overture/CSV data).
 * Each page recomputes the ranked list (a few milliseconds at a million places) instead
 * of keeping state, so the cursor is just an offset and any server process can answer
 * any page, and the first search of a keyword costs what every later one does.
 */
export class LocalPlaceProvider implements PlaceSearchProvider {
  readonly name = "local";
  private readonly repo: PlaceSearchRepo;
  private readonly terms: PlaceTermsRepo;
  private readonly postings: PlacePostingsRepo;
  private readonly inReadTransaction: (read: () => Ranked[]) => Ranked[];

  constructor(db: Db) {
    this.repo = new PlaceSearchRepo(db);
    this.terms = new PlaceTermsRepo(db);
    this.postings = new PlacePostingsRepo(db);
    // One wrapper for every search (better-sqlite3 builds one per `transaction()` call).
    const transaction = db.transaction((read: () => Ranked[]) => read());
    this.inReadTransaction = (read) => transaction(read);
  }

  async search(request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    request.signal.throwIfAborted();
    const offset = parseCursor(request.cursor);
    const matches = this.matches(request.center, request.radiusKm, request.keywords);
    request.signal.throwIfAborted();
    // Only the head of the ranking is ordered (room for duplicates included); all of it
    // only when duplicates ate that room.
    let page = this.pageOf(bestFirst(matches, offset + PAGE_SIZE + 16), offset);
    if (page.leads.length < PAGE_SIZE && page.consumed < matches.length) page = this.pageOf(sortRanked(matches), offset);
    const hasMore = page.consumed < matches.length;
    const warnings = offset === 0 && matches.length === 0 && this.repo.isEmpty() ? [EMPTY_INDEX_WARNING] : undefined;
    return { leads: page.leads, nextCursor: hasMore ? `o:${offset + page.leads.length}` : null, ...(warnings ? { warnings } : {}) };
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
    return sortRanked(this.matches(center, radiusKm, keywords));
  }

  /** The matches inside the circle with their relevance and distance, in no order. */
  private matches(center: LatLng, radiusKm: number, keywords: string): Ranked[] {
    const terms = keywordTerms(keywords);
    if (terms.length === 0) return [];
    const cells = cellsOfCircle(center, radiusKm, MAX_CELLS);
    if (!cells) return this.boxScan(center, radiusKm, terms);
    return this.termIndexMatches(cells, center, radiusKm, terms);
  }

  /**
   * The term-index plan: for each term, the postings of the words it prefixes in each cell
   * (packed, migration 013; a stale cell's `place_terms` rows instead); places outside
   * the circle are dropped on their first posting, places missing a term after that
   * term's scan. Scores come from the counts stored in the index through the scorer's own
   * `fieldTermScore`, in the scorer's order, so no place text is read and the scores are
   * the same bits. One read transaction: every cell is seen at one point in time, also
   * while an import writes.
   */
  private termIndexMatches(cells: readonly number[], center: LatLng, radiusKm: number, terms: readonly KeywordTerm[]): Ranked[] {
    return this.inReadTransaction(() => this.scoreTermIndex(cells, center, radiusKm, terms));
  }

  private scoreTermIndex(cells: readonly number[], center: LatLng, radiusKm: number, terms: readonly KeywordTerm[]): Ranked[] {
    const cellsJson = JSON.stringify(cells);
    const stale = this.postings.staleAmong(cellsJson);
    const fresh = stale.size === 0 ? cells : cells.filter((c) => !stale.has(c));
    const freshJson = stale.size === 0 ? cellsJson : JSON.stringify(fresh);
    let freshRanges: Array<[number, number]> | undefined;
    const staleCells = [...stale];
    const matches = new TermMatches(center, radiusKm, terms.length);
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      const exactWords = [term.word, ...term.prefixes];
      for (const prefix of term.prefixes) {
        // Large circles are mostly empty cells: per word, ranges of consecutive cells
        // through the (term, cell) index beat one seek per cell, unless the prefix has so
        // many words that the ranges outnumber the cells.
        let chunks;
        if (fresh.length > TERM_FIRST_MIN_CELLS) {
          freshRanges ??= cellRanges(fresh);
          const words = this.postings.termsWithPrefix(prefix);
          if (termReadOf(fresh.length, freshRanges.length, words.length) === "ranges") chunks = this.postings.scanRanges(words, freshRanges, exactWords);
        }
        chunks ??= this.postings.scan(freshJson, prefix, exactWords);
        if (staleCells.length > 0) chunks.push(...chunksOfHits(this.terms.scan(staleCells, prefix, exactWords, center, radiusKm)));
        if (t === 0) matches.reserve(chunks.reduce((n, c) => n + c.values.length / POSTING_STRIDE, 0));
        for (const chunk of chunks) matches.add(chunk.values, chunk.exact, t);
      }
    }
    const { ranked, unpacked } = matches.results();
    // A place with a field of 1,024+ words: its counts did not fit the index; score its text.
    if (unpacked.length > 0) {
      const score = relevanceScorer(terms);
      for (const c of this.repo.candidatesByIds(unpacked)) {
        const s = score(c);
        if (s !== undefined) ranked.push({ id: c.id, score: s, distanceKm: matches.distanceOf(c.id) });
      }
    }
    return ranked;
  }

  /** The fallback plan (polar circles): every place in the R*Tree box, keyword-tested and scored on its text. Public for the bench. */
  boxScan(center: LatLng, radiusKm: number, terms: readonly KeywordTerm[]): Ranked[] {
    const score = relevanceScorer(terms);
    const ranked: Ranked[] = [];
    for (const c of this.repo.boxCandidates(circleBoxes(center, radiusKm))) {
      const d = distanceKm(center, c);
      if (d > radiusKm) continue;
      const s = score(c);
      if (s !== undefined) ranked.push({ id: c.id, score: s, distanceKm: d });
    }
    return ranked;
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

/** Rows of a stale cell's term scan as postings: tf × 2 + exact unfolded into two chunks. */
function chunksOfHits(hits: readonly TermHit[]): PostingChunk[] {
  const exact: number[] = [];
  const other: number[] = [];
  for (const [place, lat, lng, tfExact, words] of hits) {
    (tfExact % 2 !== 0 ? exact : other).push(place, lat, lng, Math.floor(tfExact / 2), words);
  }
  return [
    { exact: true, values: Float64Array.from(exact) },
    { exact: false, values: Float64Array.from(other) },
  ];
}

/** The ranking order: relevance, then distance, then id (a total order: ids are unique). */
function compareRanked(a: Ranked, b: Ranked): number {
  return b.score - a.score || a.distanceKm - b.distanceKm || a.id - b.id;
}

function sortRanked(ranked: Ranked[]): Ranked[] {
  return ranked.sort(compareRanked);
}

/**
 * The first `top` of `sortRanked(all)`, exactly (the order is total), without sorting
 * thousands of matches for one page: a sorted array of the best so far, binary insertion.
 */
function bestFirst(all: readonly Ranked[], top: number): Ranked[] {
  if (all.length <= top * 4) return sortRanked([...all]);
  const best: Ranked[] = [];
  for (const r of all) {
    if (best.length === top && compareRanked(r, best[top - 1]!) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareRanked(best[mid]!, r) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, r);
    if (best.length > top) best.pop();
  }
  return best;
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A `places` row as a Lead, by the lead-value rules (docs/api.md, "Lead values"). */
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
