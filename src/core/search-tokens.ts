import { normaliseKey } from "./text.js";

/**
 * The words of a place's searchable text, as the lead search sees them: folded like the
 * FTS tokenizer (`remove_diacritics 2`, lower case), split on anything that is not a
 * letter or digit. One function for both the keyword test at query time and the term
 * index written at import time (migration 011), so the index can never disagree with the
 * scorer about which words a place has.
 */

const NON_ASCII = /[^\x00-\x7f]/;

/** Words of one field; ASCII text skips the (costly) Unicode normalisation. */
export function searchTokens(text: string | null | undefined): string[] {
  if (!text) return [];
  const folded = NON_ASCII.test(text) ? normaliseKey(text) : text.toLowerCase();
  return folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** The searchable fields of a place, in the order the scorer and the term index use. */
export const SEARCH_FIELDS = ["name", "category_text", "cuisine", "brand", "description"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
