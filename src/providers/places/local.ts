import { circleBoxes, distanceKm, type LatLng } from "../../core/geo.js";
import { toLead } from "../../core/lead-bounds.js";
import type { Lead } from "../../core/schemas/lead.js";
import { SEARCH_FIELDS } from "../../core/search-tokens.js";
import { normaliseKey } from "../../core/text.js";
import type { Db } from "../../store/db.js";
import { PlaceSearchRepo, type Candidate, type PlaceRow } from "../../store/place-search.js";
import { cellsOfBox, PlaceTermsRepo, UNPACKED, unpackField } from "../../store/place-terms.js";
import { fieldTermScore, keywordTerms, relevanceScorer, termMatch, type KeywordTerm } from "./keywords.js";
import { PAGE_SIZE, type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest, type ResolvedPlace } from "./provider.js";

/**
 * Above this many grid cells (a circle reaching a pole, where a box spans every
 * longitude), the search reads the R*Tree box instead: there are few places there, and
 * listing hundreds of thousands of cells would cost more than the places.
 */
const MAX_CELLS = 20_000;

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

/** "term-index": the cells' term ranges (migration 011); "box-scan": every place in the R*Tree box, text scored. */
export type QueryPlan = "term-index" | "box-scan";

/** What the term index says about one place in the circle, per term and field. */
interface Accumulator {
  distanceKm: number;
  /** Packed field lengths (UNPACKED when a field is too long for the index). */
  words: number;
  /** Terms matched so far (a bitmask; at most 8 terms). */
  matched: number;
  /** Matching words per (term, field). */
  tf: Uint16Array;
  /** Whether a matching word is the keyword itself, per (term, field). */
  exact: Uint8Array;
}

const FIELDS = SEARCH_FIELDS.length;

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
  /** The plan of the last search (tests and the bench look at it). */
  lastPlan: QueryPlan | undefined;

  constructor(db: Db) {
    this.repo = new PlaceSearchRepo(db);
    this.terms = new PlaceTermsRepo(db);
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
    const boxes = circleBoxes(center, radiusKm);
    const cells: number[] = [];
    for (const box of boxes) {
      const some = cellsOfBox(box, MAX_CELLS - cells.length);
      if (!some) return this.boxScan(center, radiusKm, terms);
      cells.push(...some);
    }
    this.lastPlan = "term-index";
    return sortRanked(this.termIndexMatches(cells, center, radiusKm, terms));
  }

  /**
   * The term-index plan: for each term, one range scan of the words it prefixes in each
   * cell; places outside the circle are dropped on their first row, places missing a
   * term after that term's scan. Scores come from the counts stored in the index through
   * the scorer's own `fieldTermScore`, so no place text is read.
   */
  private termIndexMatches(cells: readonly number[], center: LatLng, radiusKm: number, terms: readonly KeywordTerm[]): Ranked[] {
    const [first, second] = circleBoxes(center, radiusKm);
    const { minLat, maxLat } = first!;
    const found = new Map<number, Accumulator>();
    const point = { lat: 0, lng: 0 };
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      for (const prefix of term.prefixes) {
        for (const [place, word, lat, lng, tf, words] of this.terms.scan(cells, prefix)) {
          let acc = found.get(place);
          if (!acc) {
            // Only the first term admits places: a place without it cannot match.
            if (t > 0) continue;
            // Cells overhang the circle: test the box inline, then the exact distance.
            if (lat < minLat || lat > maxLat) continue;
            if ((lng < first!.minLng || lng > first!.maxLng) && (!second || lng < second.minLng || lng > second.maxLng)) continue;
            point.lat = lat;
            point.lng = lng;
            const d = distanceKm(center, point);
            if (d > radiusKm) continue;
            acc = { distanceKm: d, words, matched: 0, tf: new Uint16Array(terms.length * FIELDS), exact: new Uint8Array(terms.length * FIELDS) };
            found.set(place, acc);
          }
          acc.matched |= 1 << t;
          if (tf === UNPACKED) continue;
          const exact = termMatch(term, word).exact;
          for (let f = 0; f < FIELDS; f++) {
            const n = unpackField(tf, f);
            if (n === 0) continue;
            acc.tf[t * FIELDS + f]! += n;
            if (exact) acc.exact[t * FIELDS + f] = 1;
          }
        }
      }
      // Drop the places this term did not match (they can never match all terms).
      for (const [place, acc] of found) if (!(acc.matched & (1 << t))) found.delete(place);
    }
    const ranked: Ranked[] = [];
    const unpacked: number[] = [];
    for (const [place, acc] of found) {
      if (acc.words === UNPACKED) {
        unpacked.push(place);
        continue;
      }
      const score = indexScore(acc, terms.length);
      if (score !== undefined) ranked.push({ id: place, score, distanceKm: acc.distanceKm });
    }
    // A place with a field of 1,024+ words: its counts did not fit the index; score its text.
    if (unpacked.length > 0) {
      const score = relevanceScorer(terms);
      for (const c of this.repo.candidatesByIds(unpacked)) {
        const s = score(c);
        if (s !== undefined) ranked.push({ id: c.id, score: Math.fround(s), distanceKm: found.get(c.id)!.distanceKm });
      }
    }
    return ranked;
  }

  /** The fallback plan (polar circles): every place in the R*Tree box, keyword-tested and scored on its text. */
  private boxScan(center: LatLng, radiusKm: number, terms: readonly KeywordTerm[]): Ranked[] {
    this.lastPlan = "box-scan";
    const score = relevanceScorer(terms);
    const ranked: Ranked[] = [];
    for (const c of this.repo.boxCandidates(circleBoxes(center, radiusKm))) {
      const d = distanceKm(center, c);
      if (d > radiusKm) continue;
      const s = score(c);
      if (s !== undefined) ranked.push({ id: c.id, score: Math.fround(s), distanceKm: d });
    }
    return sortRanked(ranked);
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

/**
 * `relevanceScorer`'s sum, from the index's counts: terms in order, fields in order,
 * the same `fieldTermScore`. Rounded to single precision as both plans do, so that
 * scores equal to float noise tie and fall back to distance the same way everywhere.
 */
function indexScore(acc: Accumulator, termCount: number): number | undefined {
  let total = 0;
  for (let t = 0; t < termCount; t++) {
    let termScore = 0;
    for (let f = 0; f < FIELDS; f++) {
      const words = unpackField(acc.words, f);
      const tf = acc.tf[t * FIELDS + f]!;
      if (words === 0 || tf === 0) continue;
      termScore += fieldTermScore(f, tf, words, acc.exact[t * FIELDS + f] === 1);
    }
    if (termScore === 0) return undefined;
    total += termScore;
  }
  return Math.fround(total);
}

function sortRanked(ranked: Ranked[]): Ranked[] {
  return ranked.sort((a, b) => b.score - a.score || a.distanceKm - b.distanceKm || a.id - b.id);
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
