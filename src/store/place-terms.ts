import { SEARCH_FIELDS, searchTokens } from "../core/search-tokens.js";
import type { Db } from "./db.js";
import type { PostingChunk, TermRange } from "./place-postings.js";

/**
 * The spatially clustered term index of the lead search (migration 011): one row per
 * (grid cell, word, place) over the words of a place's name, categories, cuisine, brand
 * and description, keyed so that "words starting with `dentist` in this cell" is one
 * B-tree range. Each row also carries what matching needs (coordinates, the fields that
 * hold the word, whether the place has category tags), so a search reads nothing else until it builds the
 * page. Category tags are terms too (TAG_TERM_PREFIX + "amenity=dentist"). Triggers on
 * `places` keep it in sync through every write (importer upserts,
 * removals, --replace, source deletion); they call `place_terms_of`, a table-valued
 * function in JavaScript registered on every connection by `openDatabase`, so the words
 * come from the very tokenizer the scorer uses.
 */

/**
 * Grid step in degrees: 0.01° of latitude (1.1 km) by 0.015° of longitude (1.1 km at 47°N).
 * Small cells keep the rows read close to the rows inside the circle (a 5 km circle
 * touches ~85 cells, ~1.3× its area); each cell costs one B-tree seek per prefix, so a
 * 100 km circle (~25,000 cells) pays tens of milliseconds in seeks next to its rows.
 */
export const CELL_LAT_DEG = 0.01;
export const CELL_LNG_DEG = 0.015;
const ROWS = Math.round(180 / CELL_LAT_DEG);
const COLS = Math.round(360 / CELL_LNG_DEG);

const EARTH_RADIUS_KM = 6371.0088;
const toRad = (deg: number) => (deg * Math.PI) / 180;
const toDeg = (rad: number) => (rad * 180) / Math.PI;

/**
 * A place's category tag terms ("amenity=dentist") are index terms too, written with this
 * prefix: no word the tokenizer makes can start with it, so a word prefix never reads them.
 */
export const TAG_TERM_PREFIX = "#";

/** `flags` of every row of a place that has category tags (category words may otherwise match it by name). */
export const CATEGORIZED = 1;

function cellRow(lat: number): number {
  return Math.min(ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_LAT_DEG)));
}
function cellCol(lng: number): number {
  return Math.min(COLS - 1, Math.max(0, Math.floor((lng + 180) / CELL_LNG_DEG)));
}

/** The grid cell of a point (the same arithmetic at import and at query time). */
export function cellOf(lat: number, lng: number): number {
  return cellRow(lat) * COLS + cellCol(lng);
}

/**
 * Every cell that can hold a point within `radiusKm` of the centre, or undefined when
 * there are more than `max` (circles near a pole span every longitude). Row by row of
 * cells, the circle's exact longitude half-width over the row's latitudes (spherical:
 * widest at asin(sin φ0 / cos r), clamped into the row), so no cell outside the circle's
 * shadow is listed; a hair of slack so rounding never drops a point the haversine keeps.
 */
export function cellsOfCircle(center: { lat: number; lng: number }, radiusKm: number, max: number): number[] | undefined {
  const r = (radiusKm / EARTH_RADIUS_KM) * 1.0001;
  const phi0 = toRad(center.lat);
  const latMin = Math.max(-90, center.lat - toDeg(r));
  const latMax = Math.min(90, center.lat + toDeg(r));
  const widest = Math.asin(Math.max(-1, Math.min(1, Math.sin(phi0) / Math.cos(r))));
  const cells: number[] = [];
  for (let row = cellRow(latMin); row <= cellRow(latMax); row++) {
    const a = Math.max(latMin, row * CELL_LAT_DEG - 90);
    const b = Math.min(latMax, (row + 1) * CELL_LAT_DEG - 90);
    const phi = Math.max(toRad(a), Math.min(toRad(b), widest));
    const denominator = Math.cos(phi0) * Math.cos(phi);
    const x = denominator <= 1e-12 ? -1 : (Math.cos(r) - Math.sin(phi0) * Math.sin(phi)) / denominator;
    const half = x <= -1 ? 180 : toDeg(Math.acos(Math.min(1, x))) * 1.0001 + 1e-9;
    const ranges: Array<[number, number]> = [];
    if (half >= 180) ranges.push([0, COLS - 1]);
    else {
      const lo = center.lng - half;
      const hi = center.lng + half;
      ranges.push([cellCol(Math.max(-180, lo)), cellCol(Math.min(180, hi))]);
      if (lo < -180) ranges.push([cellCol(lo + 360), COLS - 1]);
      if (hi > 180) ranges.push([0, cellCol(hi - 360)]);
    }
    for (const [c0, c1] of ranges) {
      if (cells.length + (c1 - c0 + 1) > max) return undefined;
      for (let c = c0; c <= c1; c++) cells.push(row * COLS + c);
    }
  }
  return cells;
}

/**
 * One row of the index. `fields` and `flags` are stored in the columns migration 011
 * named `tf` and `words` (for word counts and field lengths, which ranking no longer
 * uses: migration 014 gave them these meanings and rebuilt the index).
 */
export interface TermRow {
  cell: number;
  term: string;
  /** Which fields hold the word, bit f for SEARCH_FIELDS[f]; 0 for a tag term. */
  fields: number;
  /** Facts about the place: CATEGORIZED. */
  flags: number;
}

/** The field of category labels ("dentist", "italian restaurant"). */
const LABELS = SEARCH_FIELDS.indexOf("category_text");

/**
 * The index rows of one place: each distinct word of its text fields with the fields it
 * is in, and each of its category tag terms (space-separated `category_tags`). A place
 * with tags has its labels' words left out: its tags say the same, in every language, and
 * a category word reads the tags (the labels would double what it reads).
 */
export function termRowsOf(lat: number, lng: number, fields: ReadonlyArray<string | null | undefined>, categoryTags: string | null | undefined): TermRow[] {
  const cell = cellOf(lat, lng);
  const tags = categoryTags ? categoryTags.split(" ").filter(Boolean) : [];
  const flags = tags.length > 0 ? CATEGORIZED : 0;
  const words = new Map<string, number>();
  for (let f = 0; f < SEARCH_FIELDS.length; f++) {
    if (f === LABELS && tags.length > 0) continue;
    for (const t of searchTokens(fields[f])) words.set(t, (words.get(t) ?? 0) | (1 << f));
  }
  const rows: TermRow[] = [];
  for (const [term, mask] of words) rows.push({ cell, term, fields: mask, flags });
  for (const tag of new Set(tags)) rows.push({ cell, term: TAG_TERM_PREFIX + tag, fields: 0, flags });
  return rows;
}

/**
 * Register `place_terms_of(lat, lng, name, category_text, cuisine, brand, description,
 * category_tags)` on a connection: the triggers of migration 014 read the rows to write
 * or delete from it. A connection without it fails loudly on a place write instead of
 * letting the index drift. Its columns keep the names migration 011 (whose SQL still
 * runs on old databases) gave them: `tf` is the row's `fields`, `words` its `flags`.
 */
export function registerPlaceTermsFunction(db: Db): void {
  db.table("place_terms_of", {
    columns: ["cell", "term", "tf", "words"],
    parameters: ["lat", "lng", "name", "category_text", "cuisine", "brand", "description", "category_tags"],
    *rows(lat: unknown, lng: unknown, ...values: unknown[]) {
      const text = values.map((v) => (typeof v === "string" ? v : null));
      for (const row of termRowsOf(Number(lat), Number(lng), text.slice(0, SEARCH_FIELDS.length), text[SEARCH_FIELDS.length])) {
        yield { cell: row.cell, term: row.term, tf: row.fields, words: row.flags };
      }
    },
  });
}

/** Read side of the term index: the rows of stale cells, which the packed postings do not hold yet. */
export class PlaceTermsRepo {
  private readonly scanStatement;

  constructor(db: Db) {
    // One seek per term range and cell (the ranges outside, as in `PlacePostingsRepo.scan`).
    // The last condition drops rows of the cells' overhang that are surely outside the
    // circle (see `outsideBound`) before they cost a conversion.
    this.scanStatement = db
      .prepare(
        `SELECT t.term, t.place, t.lat, t.lng, t.tf, t.words FROM json_each(?) r CROSS JOIN place_terms t
          WHERE t.cell IN (SELECT value FROM json_each(?)) AND t.term >= r.value ->> 0 AND t.term < r.value ->> 1
            AND ((t.lat - @lat) * @k - (t.lat - @lat) * @k * (t.lat - @lat) * @k * (t.lat - @lat) * @k / 6)
              * ((t.lat - @lat) * @k - (t.lat - @lat) * @k * (t.lat - @lat) * @k * (t.lat - @lat) * @k / 6)
              + @cc * ((t.lng - @lng) * @k - (t.lng - @lng) * @k * (t.lng - @lng) * @k * (t.lng - @lng) * @k / 6)
              * ((t.lng - @lng) * @k - (t.lng - @lng) * @k * (t.lng - @lng) * @k * (t.lng - @lng) * @k / 6) <= @h
          ORDER BY t.term`,
      )
      .raw(true);
  }

  /**
   * The rows of these (stale) cells whose term is in one of the ranges and whose place may
   * lie within `radiusKm` of the centre, as postings: one chunk per term, the records of
   * `PlacePostingsRepo` ([place, lat, lng, fields, flags]).
   */
  scan(cells: readonly number[], ranges: readonly TermRange[], center: { lat: number; lng: number }, radiusKm: number): PostingChunk[] {
    const rows = this.scanStatement.all(JSON.stringify(ranges), JSON.stringify(cells), outsideBound(center, radiusKm)) as Array<[string, number, number, number, number, number]>;
    const chunks: PostingChunk[] = [];
    for (let start = 0; start < rows.length; ) {
      const term = rows[start]![0];
      let end = start;
      while (end < rows.length && rows[end]![0] === term) end++;
      const values = new Float64Array((end - start) * 5);
      for (let i = start, o = 0; i < end; i++) for (let k = 1; k <= 5; k++) values[o++] = rows[i]![k] as number;
      chunks.push({ term, values });
      start = end;
    }
    return chunks;
  }
}

/**
 * Parameters of a test that never drops a point of the circle. With a = Δφ/2 and b = Δλ/2
 * (radians), the haversine is h = sin²a + cos φ0 cos φ sin²b, inside iff h ≤ sin²(r/2).
 * Since |sin x| ≥ |x − x³/6| for |x| ≤ √6 and cos φ ≥ its least value over the circle's
 * latitudes, (a − a³/6)² + cos φ0 · cos φ_far · (b − b³/6)² ≤ h: a row is dropped only
 * when even this lower bound exceeds sin²(r/2) (times a hair for rounding). Off (h = ∞)
 * when the circle crosses ±180° (Δλ wraps) or reaches a pole.
 */
function outsideBound(center: { lat: number; lng: number }, radiusKm: number): { lat: number; lng: number; k: number; cc: number; h: number } {
  const r = radiusKm / EARTH_RADIUS_KM;
  const dLat = toDeg(r) * 1.0001;
  const farLat = Math.abs(center.lat) + dLat;
  const dLng = farLat >= 90 ? 360 : (dLat / Math.cos(toRad(farLat))) * 1.0001;
  const off = farLat >= 89 || center.lng - dLng < -180 || center.lng + dLng > 180;
  return {
    lat: center.lat,
    lng: center.lng,
    k: Math.PI / 360,
    cc: Math.cos(toRad(center.lat)) * Math.cos(toRad(Math.min(90, farLat))),
    h: off ? Number.MAX_VALUE : Math.sin(r / 2) ** 2 * (1 + 1e-6),
  };
}