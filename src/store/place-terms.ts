import { cellOf, outsideBound } from "../core/geo-grid.js";
import { SEARCH_FIELDS, searchTokens } from "../core/search-tokens.js";
import type { Db } from "./connection.js";

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

/** Per-field counts are packed in base 1024 (5 × 10 bits = 50 bits, exact in a double). */
export const FIELD_BASE = 1024;
/** `tf`/`words` of a place with a field longer than the packing holds: rank it from its text instead. */
export const UNPACKED = -1;

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

/**
 * One row of a term scan: [place, lat, lng, tf × 2 + exact, words], where exact is 1 when
 * the word is one of the scan's `exactWords` (folded into `tf`: one value fewer per row).
 */
export type TermHit = [number, number, number, number, number];

const MAX_EXACT_WORDS = 4;

/** Read side of the term index. */
export class PlaceTermsRepo {
  private readonly scanStatement;

  constructor(db: Db) {
    // One seek per cell (the IN list drives the primary key's first column), then a
    // range over the words that start with the prefix. Numbers only: turning rows into
    // JavaScript values is most of the cost (the word itself is compared here instead).
    // The last condition drops rows of the cells' overhang that are surely outside the
    // circle (see `outsideBound`) before they cost a conversion.
    this.scanStatement = db
      .prepare(
        `SELECT place, lat, lng, tf * 2 + (term IN (?, ?, ?, ?)), words FROM place_terms
          WHERE cell IN (SELECT value FROM json_each(?)) AND term >= ? AND term < ?
            AND ((lat - @lat) * @k - (lat - @lat) * @k * (lat - @lat) * @k * (lat - @lat) * @k / 6)
              * ((lat - @lat) * @k - (lat - @lat) * @k * (lat - @lat) * @k * (lat - @lat) * @k / 6)
              + @cc * ((lng - @lng) * @k - (lng - @lng) * @k * (lng - @lng) * @k * (lng - @lng) * @k / 6)
              * ((lng - @lng) * @k - (lng - @lng) * @k * (lng - @lng) * @k * (lng - @lng) * @k / 6) <= @h`,
      )
      .raw(true);
  }

  /**
   * Every (place, word) in these cells whose word starts with `prefix` and that may lie
   * within `radiusKm` of the centre; `exact` says whether the word is one of
   * `exactWords` (the keyword and its prefixes, at most four). `all()` rather than
   * `iterate()`: one call into SQLite instead of one per row.
   */
  scan(cells: readonly number[], prefix: string, exactWords: readonly string[], center: { lat: number; lng: number }, radiusKm: number): TermHit[] {
    if (exactWords.length > MAX_EXACT_WORDS) throw new Error(`at most ${MAX_EXACT_WORDS} exact words (a keyword and its stems)`);
    const exact = Array.from({ length: MAX_EXACT_WORDS }, (_, i) => exactWords[i] ?? exactWords[0] ?? "");
    return this.scanStatement.all(...exact, JSON.stringify(cells), prefix, prefix + "\u{10FFFF}", outsideBound(center, radiusKm)) as TermHit[];
  }
}
