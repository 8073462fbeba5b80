import { foldForSearch } from "../../core/text.js";

/**
 * The words of a place's searchable text, as the lead search sees them: folded by
 * `foldForSearch` (lower case, diacritics removed, transliterations such as "ae" = "ä"
 * folded), split on anything that is not a letter or digit. One function for both the
 * keyword test at query time and the term index written at import time (migration 011),
 * so the index can never disagree with the matcher about which words a place has.
 */
export function searchTokens(text: string | null | undefined): string[] {
  if (!text) return [];
  return foldForSearch(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** The searchable text fields of a place, in the order the matcher and the term index use. */
export const SEARCH_FIELDS = ["name", "category_text", "cuisine", "brand", "description"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
