import { cellOf } from "./geo-grid.js";
import { SEARCH_FIELDS, searchTokens } from "./search-tokens.js";

/**
 * The terms of the lead search's index: one row per (grid cell, word, place) over the
 * words of a place's name, categories, cuisine, brand and description, and its category
 * tags (TAG_TERM_PREFIX + "amenity=dentist"), with what matching needs (the fields that
 * hold the word, whether the place has category tags). They come from the very tokenizer
 * the scorer uses. The index itself is the packed postings built from these rows
 * (`place-postings.ts`, migrations 013 and 019); migration 011's `place_terms` table,
 * which held them as rows, was dropped by migration 019.
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

/**
 * The index rows of one place: each distinct word of its text fields with the fields it
 * is in, and each of its category tag terms (space-separated `category_tags`). The labels
 * field (`category_text`) of a place with tags holds only the labels its tags do not say
 * (the import writes it so, migration 029 made older rows so): what the tags say is read
 * through them, in every language, and a user's "key account" beside "bakery" stays
 * searchable as words.
 */
export function termRowsOf(lat: number, lng: number, fields: ReadonlyArray<string | null | undefined>, categoryTags: string | null | undefined): TermRow[] {
  const cell = cellOf(lat, lng);
  const rows: TermRow[] = [];
  eachTermOf(fields, categoryTags, (term, mask, flags) => rows.push({ cell, term, fields: mask, flags }));
  return rows;
}

/**
 * `termRowsOf` without the rows: `each(term, fields, flags)` per row, in the same order.
 * What a rebuild of the postings calls for a million places (no object per row).
 */
export function eachTermOf(
  fields: ReadonlyArray<string | null | undefined>,
  categoryTags: string | null | undefined,
  each: (term: string, fields: number, flags: number) => void,
): void {
  const tags = categoryTags ? categoryTags.split(" ").filter(Boolean) : [];
  const flags = tags.length > 0 ? CATEGORIZED : 0;
  const words = new Map<string, number>();
  for (let f = 0; f < SEARCH_FIELDS.length; f++) {
    for (const t of searchTokens(fields[f])) words.set(t, (words.get(t) ?? 0) | (1 << f));
  }
  for (const [term, mask] of words) each(term, mask, flags);
  for (const tag of new Set(tags)) each(TAG_TERM_PREFIX + tag, 0, flags);
}
