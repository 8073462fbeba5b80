import { circleBoxes, distanceKm, type LatLng } from "../../core/geo.js";
import { toLead } from "../../core/lead-values.js";
import type { Lead } from "../../core/schemas/lead.js";
import type { Db } from "../../store/db.js";
import { PlaceSearchRepo, type PlaceRow } from "../store/place-search.js";
import { cellCount, cellsOf, circleCellRanges, rangesWithout, type CellRanges } from "../store/geo-grid.js";
import { bestScore, CircleBands, type EarlyStop } from "./circle-bands.js";
import { TAG_TERM_PREFIX } from "../store/place-terms.js";
import { exactRange, PlacePostingsRepo, prefixRange, type TermRange } from "../store/place-postings.js";
import { POSTING_STRIDE, type PostingChunk } from "../store/postings-codec.js";
import { loadCategoryVocabulary, withinOneEdit, type CategoryVocabulary } from "../vocabulary/category-vocabulary.js";
import { PlaceLabelWords } from "../store/place-label-words.js";
import { parseKeywords, type QuerySlot } from "./keywords.js";
import { PAGE_SIZE, type LeadSort, type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest, type ResolvedPlace } from "./provider.js";
import { businessNameKey, ONE_SOURCE, sameBusiness } from "./same-business.js";
import { textMatcher } from "./slot-match.js";
import { TermMatches, type Ranked } from "./term-matches.js";

/**
 * Above this many grid cells (a circle reaching a pole, where a box spans every
 * longitude), the search reads the box's places instead: there are few places there, and
 * listing hundreds of thousands of cells would cost more than the places.
 */
const MAX_CELLS = 60_000;

/**
 * How a term range's postings are read in a circle of `cells` fresh cells that make
 * `ranges` runs of consecutive cells, when the range has `words` words: per word and
 * range of cells (one seek each, then neighbouring rows: the postings are clustered by
 * term and cell, migration 021), unless that takes more seeks than reading cell by cell
 * through the (cell, term) index (a short prefix of many words in a small circle).
 */
export function termReadOf(cells: number, ranges: number, words: number): "cells" | "ranges" {
  return words * ranges <= cells ? "ranges" : "cells";
}

/** What a search on an index with nothing imported says (the result's `warnings`). */
export const EMPTY_INDEX_WARNING =
  "local: the places index is empty; import the bundled Monaco sample with `outreach places import --sample`, or your region with `outreach places download <region> --import` (docs/data.md)";

/** Typo tolerance: words this long may be one edit off. */
const TYPO_MIN_LENGTH = 5;

/** How the local provider's cursor looks: the number of (deduplicated) leads already returned. */
function parseCursor(cursor: string | null): number {
  if (cursor === null) return 0;
  const m = /^o:(\d{1,7})$/.exec(cursor);
  if (!m) throw new Error(`malformed local cursor ${JSON.stringify(cursor)}`);
  return Number(m[1]);
}

export interface LocalPlaceProviderOptions {
  /** The category vocabulary (default: built in memory on first use). */
  vocabulary?: () => CategoryVocabulary;
  /** Read a large circle only as far as the page needs (default); false: always all of it (what tests and the bench compare with). */
  earlyStop?: boolean;
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
  private readonly postings: PlacePostingsRepo;
  private readonly vocabulary: () => CategoryVocabulary;
  private readonly inReadTransaction: <T>(read: () => T) => T;
  private readonly earlyStop: boolean;
  /** The words of places' labels (none before migration 030: every plain word may then be one). */
  private readonly labelWords: PlaceLabelWords | undefined;

  constructor(db: Db, options: LocalPlaceProviderOptions = {}) {
    this.repo = new PlaceSearchRepo(db);
    this.postings = new PlacePostingsRepo(db);
    this.labelWords = PlaceLabelWords.of(db);
    this.vocabulary = options.vocabulary ?? (() => loadCategoryVocabulary());
    this.earlyStop = options.earlyStop ?? true;
    // One wrapper for every search (better-sqlite3 builds one per `transaction()` call).
    const transaction = db.transaction((read: () => unknown) => read());
    this.inReadTransaction = <T>(read: () => T) => transaction(read) as T;
  }

  async search(request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    request.signal.throwIfAborted();
    const offset = parseCursor(request.cursor);
    const sort = request.sort ?? "relevance";
    let slots = this.slotsOf(request.keywords);
    // Only the head of the ranking is ordered (room for duplicates included), and a large
    // circle is read outward from the centre only until that head (and one more, which
    // says whether a next page exists) is certain; the `name` order needs every match's
    // name, so it reads the whole circle.
    const head = offset + PAGE_SIZE + 16;
    const stop: EarlyStop | undefined = sort === "name" || !this.earlyStop ? undefined : { sort, top: head + 1 };
    let found = this.matches(request.center, request.radiusKm, slots, stop);
    let didYouMean: string | null = null;
    // Nothing as typed: one edit away, a word of the vocabulary or of the circle's places.
    if (found.matches.length === 0) {
      const corrected = this.corrected(request.center, request.radiusKm, slots);
      if (corrected) {
        didYouMean = corrected;
        slots = this.slotsOf(corrected);
        found = this.matches(request.center, request.radiusKm, slots, stop);
      }
    }
    request.signal.throwIfAborted();
    let matches = found.matches;
    const compare = this.comparator(sort, matches);
    let page = this.pageOf(bestFirst(matches, head, compare), offset);
    // Duplicates ate the head's room: all of the ranking, the whole circle read.
    if (page.leads.length < PAGE_SIZE && page.consumed < matches.length) {
      if (!found.complete) matches = this.matches(request.center, request.radiusKm, slots).matches;
      page = this.pageOf(matches.sort(compare), offset);
    }
    const hasMore = page.consumed < matches.length;
    const indexEmpty = offset === 0 && matches.length === 0 && this.repo.isEmpty();
    return { leads: page.leads, nextCursor: hasMore ? `o:${offset + page.leads.length}` : null, didYouMean, ...(indexEmpty ? { warnings: [EMPTY_INDEX_WARNING], indexEmpty } : {}) };
  }

  prepare(): void {
    this.vocabulary();
  }

  async resolvePlaceId(placeId: string, signal: AbortSignal): Promise<ResolvedPlace | undefined> {
    signal.throwIfAborted();
    const row = this.repo.byPlaceId(placeId);
    return row ? { center: { lat: row.lat, lng: row.lng }, name: row.name } : undefined;
  }

  /** The keywords as query slots, against the category vocabulary. */
  slotsOf(keywords: string): QuerySlot[] {
    return parseKeywords(keywords, this.vocabulary());
  }

  /**
   * Every match inside the strict circle in `sort` order: by default relevance (category
   * match over name match over weaker ones), then distance, then the row id so equal
   * places always come in one order.
   */
  rankedMatches(center: LatLng, radiusKm: number, keywords: string, sort: LeadSort = "relevance"): Ranked[] {
    const { matches } = this.matches(center, radiusKm, this.slotsOf(keywords));
    return matches.sort(this.comparator(sort, matches));
  }

  /**
   * The matches a page in `stop.sort` order reads (see `matches`): whether the search
   * stopped early (`complete` false) and what it found. Public for tests.
   */
  headMatches(center: LatLng, radiusKm: number, keywords: string, stop: EarlyStop): { matches: Ranked[]; complete: boolean } {
    return this.matches(center, radiusKm, this.slotsOf(keywords), stop);
  }

  /**
   * The matches inside the circle with their relevance and distance, in no order: all of
   * them (`complete`), or with `stop`, possibly only those of the circle's inner part,
   * which then hold the first `stop.top` of the whole ranking (see `CircleBands`).
   */
  private matches(center: LatLng, radiusKm: number, slots: readonly QuerySlot[], stop?: EarlyStop): { matches: Ranked[]; complete: boolean } {
    if (slots.length === 0) return { matches: [], complete: true };
    const cells = circleCellRanges(center, radiusKm, MAX_CELLS);
    if (!cells) return { matches: this.boxScan(center, radiusKm, slots), complete: true };
    return this.inReadTransaction(() => this.termIndexMatches(cells, center, radiusKm, slots, stop));
  }

  /**
   * The term-index plan: for each slot, the postings of its category tag terms and of the
   * words its prefixes start, per cell (packed, migration 013; a stale cell's
   * postings computed from its places instead). The first slot admits the places inside the circle; a
   * slot's hosts (tags that let a name match count) are read only when some place matched
   * it by name. No place text is read. One read transaction: every cell is seen at one
   * point in time, also while an import writes.
   */
  private termIndexMatches(
    cells: CellRanges,
    center: LatLng,
    radiusKm: number,
    slots: readonly QuerySlot[],
    stop: EarlyStop | undefined,
  ): { matches: Ranked[]; complete: boolean } {
    const reader = new PostingsReader(this.postings, cells, center, radiusKm);
    const matches = new TermMatches(center, radiusKm, slots);
    const bands = stop && CircleBands.worthIt(cells) ? new CircleBands(center, radiusKm, cells, MAX_CELLS) : undefined;
    if (!bands) {
      this.readSlots(reader, matches, slots, cells, true);
      return { matches: matches.results(), complete: true };
    }
    // Band by band outward; a place's postings all lie in its cell, so a band's places
    // are final once it is read.
    const found: Ranked[] = [];
    // Read in this transaction: the label words of every cell it sees packed are listed.
    const best = bestScore(slots, (words) => this.labelWords?.holdsAny(words) ?? true);
    for (let band = 0; ; band++) {
      const from = matches.admitted;
      this.readSlots(reader, matches, slots, bands.next(), band === 0);
      for (const r of matches.results(from)) found.push(r);
      if (bands.done) return { matches: found, complete: true };
      if (bands.settles(found, stop!, best)) return { matches: found, complete: false };
    }
  }

  /**
   * Every slot's postings in these cells into `matches` (the stale cells' too, computed
   * from their places, when `withStale`: the whole circle's, in the first band).
   */
  private readSlots(reader: PostingsReader, matches: TermMatches, slots: readonly QuerySlot[], cells: CellRanges, withStale: boolean): void {
    for (let s = 0; s < slots.length; s++) {
      const slot = slots[s]!;
      const admit = s === 0;
      const alternativeBits = slot.alternatives.reduce((all, mask) => all | mask, 0);
      const tagBit = new Map(slot.tagTerms.map((term, bit) => [TAG_TERM_PREFIX + term, bit]));
      // The meanings' tag terms and the word prefixes, in one read.
      const ranges: TermRange[] = [];
      slot.tagTerms.forEach((term, bit) => {
        if (alternativeBits & (1 << bit)) ranges.push(exactRange(TAG_TERM_PREFIX + term));
      });
      for (const { prefix } of slot.prefixes) ranges.push(prefixRange(prefix));
      const nameHitsBefore = matches.nameHits(s);
      const chunks = reader.read(ranges, cells, withStale);
      if (admit) matches.reserve(countPostings(chunks));
      for (const chunk of chunks) {
        const bit = tagBit.get(chunk.term);
        if (bit !== undefined) {
          matches.addTags(chunk.values, s, bit, admit);
          continue;
        }
        const prefix = slot.prefixes.find((p) => chunk.term.startsWith(p.prefix));
        if (prefix) matches.addWords(chunk.values, s, slot.exactWords.includes(chunk.term), prefix.strong, admit);
      }
      // The other kinds of place a name may say it is ("Pizzeria Roma", a restaurant, for pizza): only after a name hit.
      const hostRanges: TermRange[] = [];
      slot.tagTerms.forEach((term, bit) => {
        if (slot.hostMask & (1 << bit) && !(alternativeBits & (1 << bit))) hostRanges.push(exactRange(TAG_TERM_PREFIX + term));
      });
      if (hostRanges.length > 0 && matches.nameHits(s) > nameHitsBefore) {
        for (const chunk of reader.read(hostRanges, cells, withStale)) matches.addTags(chunk.values, s, tagBit.get(chunk.term)!, false);
      }
    }
  }

  /** The fallback plan (polar circles): every place in the box (by grid row), matched on its text and tags. Public for the bench. */
  boxScan(center: LatLng, radiusKm: number, slots: readonly QuerySlot[]): Ranked[] {
    const match = textMatcher(slots);
    const ranked: Ranked[] = [];
    for (const c of this.repo.boxCandidates(circleBoxes(center, radiusKm))) {
      const d = distanceKm(center, c);
      if (d > radiusKm) continue;
      const s = match(c);
      if (s !== undefined) ranked.push({ id: c.id, score: s, distanceKm: d });
    }
    return ranked;
  }

  /**
   * The keywords with each plain word of TYPO_MIN_LENGTH letters or more that nothing in
   * the circle has replaced by a word one edit away: a category word of the vocabulary
   * ("restaurnat") or else the word of the circle's places that most places have
   * ("Starbuks"). Undefined when no word changes.
   */
  private corrected(center: LatLng, radiusKm: number, slots: readonly QuerySlot[]): string | undefined {
    const ranges = circleCellRanges(center, radiusKm, MAX_CELLS);
    const cells = ranges && cellsOf(ranges);
    let changed = false;
    const words = slots.map((slot) => {
      if (slot.concept || slot.text.length < TYPO_MIN_LENGTH || slot.text.includes(" ")) return slot.text;
      const vocabularyWord = this.vocabulary().closestWord(slot.text);
      const replacement = vocabularyWord ?? (cells ? this.nearestIndexWord(cells, slot.text) : undefined);
      if (!replacement) return slot.text;
      changed = true;
      return replacement;
    });
    return changed ? words.join(" ") : undefined;
  }

  /** The word of the cells' places one edit from `word` (same first letter) that most places have. */
  private nearestIndexWord(cells: readonly number[], word: string): string | undefined {
    let best: { term: string; places: number } | undefined;
    for (const [term, places] of this.inReadTransaction(() => this.postings.termsInCells(JSON.stringify(cells), word[0]!))) {
      if (Math.abs(term.length - word.length) > 1 || !withinOneEdit(word, term)) continue;
      if (!best || places > best.places) best = { term, places };
    }
    return best?.term;
  }

  /** The order of `sort` over these matches (names are read once, for "name"). */
  private comparator(sort: LeadSort, matches: readonly Ranked[]): (a: Ranked, b: Ranked) => number {
    if (sort === "distance") return (a, b) => a.distanceKm - b.distanceKm || b.score - a.score || a.id - b.id;
    if (sort === "name") {
      const names = this.repo.sortNamesByIds(matches.map((m) => m.id));
      return (a, b) => {
        const x = names.get(a.id) ?? "";
        const y = names.get(b.id) ?? "";
        return (x < y ? -1 : x > y ? 1 : 0) || a.distanceKm - b.distanceKm || a.id - b.id;
      };
    }
    return compareRelevance;
  }

  /**
   * Leads `offset .. offset+20` of the deduplicated ranking. Rows are read in chunks from
   * the top so that a duplicate is always dropped the same way, whichever page it falls on.
   */
  private pageOf(ranked: Ranked[], offset: number): { leads: Lead[]; consumed: number } {
    const kept: Lead[] = [];
    // Kept records by name: a record is compared (`sameBusiness`) only with those of its name
    // (within one source, records of two names are never one business).
    const byName = new Map<string, PlaceRow[]>();
    let consumed = 0;
    const want = offset + PAGE_SIZE;
    while (kept.length < want && consumed < ranked.length) {
      // A few rows beyond what the page still needs, for duplicates: reading a row costs
      // more than the rest of a small search's work, and another chunk costs one statement.
      const chunk = ranked.slice(consumed, consumed + want - kept.length + 4);
      const rows = new Map(this.repo.rowsByIds(chunk.map((c) => c.id)).map((r) => [r.id, r]));
      for (const c of chunk) {
        consumed++;
        const row = rows.get(c.id);
        const lead = row ? leadFromRow(row) : undefined;
        if (!row || !lead) continue;
        const name = businessNameKey(row.name);
        const sameName = byName.get(name);
        if (sameName) {
          if (sameName.some((other) => sameBusiness(other, row, ONE_SOURCE))) continue;
          sameName.push(row);
        } else if (name) byName.set(name, [row]);
        kept.push(lead);
        if (kept.length === want) break;
      }
    }
    // Anything left unread may still hold leads that are not duplicates.
    return { leads: kept.slice(offset), consumed };
  }
}

/**
 * Postings of a circle's cells, or of a band of them: packed for fresh cells, computed
 * from their places for stale ones (all of the circle's at once). The fresh cells are
 * read in one statement per (word, range of consecutive cells) and, for prefixes of so
 * many words that this takes more seeks, one cell by cell (`termReadOf`); a word's BLOBs
 * come back as one.
 */
class PostingsReader {
  private readonly stale: Set<number>;
  private readonly staleCells: number[];
  /** The words of each term range (a band reads the same ranges again). */
  private readonly wordsOf = new Map<string, string[]>();

  constructor(
    private readonly postings: PlacePostingsRepo,
    cells: CellRanges,
    private readonly center: LatLng,
    private readonly radiusKm: number,
  ) {
    this.stale = postings.staleIn(cells);
    this.staleCells = [...this.stale];
  }

  /** Postings of every term in these ranges (word prefixes, exact tag terms) in these cells' fresh ones, and with `withStale` in the circle's stale cells. */
  read(ranges: readonly TermRange[], cells: CellRanges, withStale: boolean): PostingChunk[] {
    if (ranges.length === 0) return [];
    const chunks: PostingChunk[] = [];
    const fresh = rangesWithout(cells, this.stale);
    const freshCount = cellCount(fresh);
    if (freshCount > 0) {
      const byRange: string[] = [];
      const byCell: TermRange[] = [];
      for (const range of ranges) {
        // A term range the index holds nowhere (a tag synonym such as `office=physician` in
        // a country that never uses it) costs one seek to rule out.
        const key = `${range[0]}\u0000${range[1]}`;
        let words = this.wordsOf.get(key);
        if (!words) this.wordsOf.set(key, (words = this.postings.termsIn(range)));
        if (words.length === 0) continue;
        if (termReadOf(freshCount, fresh.length, words.length) === "ranges") byRange.push(...words);
        else byCell.push(range);
      }
      if (byRange.length > 0) chunks.push(...this.postings.scanRanges([...new Set(byRange)], fresh));
      if (byCell.length > 0) chunks.push(...this.postings.scan(JSON.stringify(cellsOf(fresh)), byCell));
    }
    if (withStale && this.staleCells.length > 0) chunks.push(...this.postings.scanStale(this.staleCells, ranges, this.center, this.radiusKm));
    return chunks;
  }
}

function countPostings(chunks: readonly PostingChunk[]): number {
  return chunks.reduce((n, c) => n + c.values.length / POSTING_STRIDE, 0);
}

/** The relevance order: relevance, then distance, then id (a total order: ids are unique). */
function compareRelevance(a: Ranked, b: Ranked): number {
  return b.score - a.score || a.distanceKm - b.distanceKm || a.id - b.id;
}

/**
 * The first `top` of `all` sorted by `compare` (a total order), exactly, without sorting
 * thousands of matches for one page: a sorted array of the best so far, binary insertion.
 */
function bestFirst(all: readonly Ranked[], top: number, compare: (a: Ranked, b: Ranked) => number): Ranked[] {
  if (all.length <= top * 4) return [...all].sort(compare);
  const best: Ranked[] = [];
  for (const r of all) {
    if (best.length === top && compare(r, best[top - 1]!) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid]!, r) <= 0) lo = mid + 1;
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
