import { cellOf, outsideBound } from "../core/geo-grid.js";
import { SEARCH_FIELDS, searchTokens } from "../core/search-tokens.js";
import type { Db } from "./connection.js";
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
 * A place's category tag terms ("amenity=dentist") are index terms too, written with this
 * prefix: no word the tokenizer makes can start with it, so a word prefix never reads them.
 */
export const TAG_TERM_PREFIX = "#";

/** `flags` of every row of a place that has category tags (category words may otherwise match it by name). */
export const CATEGORIZED = 1;

/**
 * One row of the index. `fields` and `flags` are stored in the columns migration 011
 * named `tf` and `words` (for word counts and field lengths, which ranking no longer
 * uses: migration 015 gave them these meanings and rebuilt the index).
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
 * category_tags)` on a connection: the triggers of migration 015 read the rows to write
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
