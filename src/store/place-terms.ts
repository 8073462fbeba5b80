import { SEARCH_FIELDS, searchTokens } from "../core/search-tokens.js";
import type { Db } from "./db.js";

/**
 * The spatially clustered term index of the lead search (migration 011): one row per
 * (grid cell, word, place) over the words of a place's name, categories, cuisine, brand
 * and description, keyed so that "words starting with `dentist` in this cell" is one
 * B-tree range. Each row also carries what ranking needs (coordinates, the word's count
 * per field, the fields' lengths), so a search reads nothing else until it builds the
 * page. Triggers on `places` keep it in sync through every write (importer upserts,
 * removals, --replace, source deletion); they call `place_terms_of`, a table-valued
 * function in JavaScript registered on every connection by `openDatabase`, so the words
 * come from the very tokenizer the scorer uses.
 */

/** Grid step in degrees: about 5.5 km north-south, 3.5 km east-west at 50°N. A 5 km circle touches ~20 cells, 100 km ~2,000. */
export const CELL_DEG = 0.05;
const ROWS = Math.round(180 / CELL_DEG);
const COLS = Math.round(360 / CELL_DEG);

/** Per-field counts are packed in base 1024 (5 × 10 bits = 50 bits, exact in a double). */
const FIELD_BASE = 1024;
/** `tf`/`words` of a place with a field longer than the packing holds: rank it from its text instead. */
export const UNPACKED = -1;

function cellRow(lat: number): number {
  return Math.min(ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_DEG)));
}
function cellCol(lng: number): number {
  return Math.min(COLS - 1, Math.max(0, Math.floor((lng + 180) / CELL_DEG)));
}

/** The grid cell of a point (the same arithmetic at import and at query time). */
export function cellOf(lat: number, lng: number): number {
  return cellRow(lat) * COLS + cellCol(lng);
}

/** Every cell a box touches, or undefined when there are more than `max` (polar or antimeridian-wide boxes). */
export function cellsOfBox(box: { minLat: number; maxLat: number; minLng: number; maxLng: number }, max: number): number[] | undefined {
  const r0 = cellRow(box.minLat);
  const r1 = cellRow(box.maxLat);
  const c0 = cellCol(box.minLng);
  const c1 = cellCol(box.maxLng);
  if ((r1 - r0 + 1) * (c1 - c0 + 1) > max) return undefined;
  const cells: number[] = [];
  for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) cells.push(r * COLS + c);
  return cells;
}

/** Field `f`'s count out of a packed `tf` or `words` value. */
export function unpackField(packed: number, f: number): number {
  return Math.floor(packed / FIELD_BASE ** f) % FIELD_BASE;
}

export interface TermRow {
  cell: number;
  term: string;
  tf: number;
  words: number;
}

/** The index rows of one place: each distinct word with its count per field, and the fields' lengths. */
export function termRowsOf(lat: number, lng: number, fields: ReadonlyArray<string | null | undefined>): TermRow[] {
  const cell = cellOf(lat, lng);
  const counts = new Map<string, number[]>();
  let words = 0;
  let fits = true;
  for (let f = 0; f < SEARCH_FIELDS.length; f++) {
    const tokens = searchTokens(fields[f]);
    if (tokens.length >= FIELD_BASE) fits = false;
    words += Math.min(tokens.length, FIELD_BASE - 1) * FIELD_BASE ** f;
    for (const t of tokens) {
      let perField = counts.get(t);
      if (!perField) counts.set(t, (perField = [0, 0, 0, 0, 0]));
      perField[f]!++;
    }
  }
  const rows: TermRow[] = [];
  for (const [term, perField] of counts) {
    const tf = perField.reduce((sum, n, f) => sum + n * FIELD_BASE ** f, 0);
    rows.push({ cell, term, tf: fits ? tf : UNPACKED, words: fits ? words : UNPACKED });
  }
  return rows;
}

/**
 * Register `place_terms_of(lat, lng, name, category_text, cuisine, brand, description)`
 * on a connection: the triggers of migration 011 read the rows to write or delete from
 * it. A connection without it fails loudly on a place write instead of letting the index
 * drift.
 */
export function registerPlaceTermsFunction(db: Db): void {
  db.table("place_terms_of", {
    columns: ["cell", "term", "tf", "words"],
    parameters: ["lat", "lng", "name", "category_text", "cuisine", "brand", "description"],
    *rows(lat: unknown, lng: unknown, ...fields: unknown[]) {
      yield* termRowsOf(Number(lat), Number(lng), fields.map((v) => (typeof v === "string" ? v : null)));
    },
  });
}

/** One row of a term scan, as an array: [place, term, lat, lng, tf, words]. */
export type TermHit = [number, string, number, number, number, number];

/** Read side of the term index. */
export class PlaceTermsRepo {
  private readonly scanStatement;

  constructor(db: Db) {
    // One seek per cell (the IN list drives the primary key's first column), then a
    // range over the words that start with the prefix.
    this.scanStatement = db
      .prepare("SELECT place, term, lat, lng, tf, words FROM place_terms WHERE cell IN (SELECT value FROM json_each(?)) AND term >= ? AND term < ?")
      .raw(true);
  }

  /** Every (place, word) in these cells whose word starts with `prefix`. */
  scan(cells: readonly number[], prefix: string): IterableIterator<TermHit> {
    return this.scanStatement.iterate(JSON.stringify(cells), prefix, prefix + "\u{10FFFF}") as IterableIterator<TermHit>;
  }
}
