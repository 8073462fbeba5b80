import { normaliseKey } from "../../core/text.js";

/**
 * One keyword as prefixes to look up: "dentists" → ["dentists", "dentist"], "bakeries"
 * → ["bakeries", "baker"], "cafés" → ["cafes", "cafe"]. Each is used as an FTS prefix
 * ("dentist"* also finds "Dentists Vaduz"), so singular and plural find each other.
 */
export interface KeywordTerm {
  word: string;
  prefixes: string[];
}

const MAX_TERMS = 8;

/** The shortest form whose prefix query covers both singular and plural of a regular English noun. */
function stems(word: string): string[] {
  const out = new Set([word]);
  if (word.length >= 5 && word.endsWith("ies")) out.add(word.slice(0, -3)); // bakeries → baker(y|ies)
  else if (word.length >= 4 && /[^aeiou]y$/.test(word)) out.add(word.slice(0, -1)); // bakery → baker*
  else if (word.length >= 5 && /(ss|x|z|ch|sh)es$/.test(word)) out.add(word.slice(0, -2)); // boxes → box
  else if (word.length >= 4 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) out.add(word.slice(0, -1)); // dentists → dentist
  // A shorter prefix already covers the longer one.
  const list = [...out].sort((a, b) => a.length - b.length);
  return list.filter((w, i) => !list.slice(0, i).some((shorter) => w.startsWith(shorter)));
}

/**
 * The user's keywords as terms, ANDed: diacritics folded and lower-cased the way the FTS
 * tokenizer does (`remove_diacritics 2`), split on anything that is not a letter or digit,
 * one-letter words dropped unless they are all there is.
 */
export function keywordTerms(keywords: string): KeywordTerm[] {
  const words = normaliseKey(keywords)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const useful = words.filter((w) => w.length >= 2);
  const chosen = [...new Set(useful.length ? useful : words)].slice(0, MAX_TERMS);
  return chosen.map((word) => ({ word, prefixes: stems(word) }));
}

/** FTS5 query text: each term's prefixes ORed, terms ANDed; every string quoted so no user text is syntax. */
export function ftsQuery(terms: readonly KeywordTerm[]): string {
  return terms
    .map((t) => {
      const alternatives = t.prefixes.map((p) => `"${p.replace(/"/g, '""')}"*`);
      return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(" OR ")})`;
    })
    .join(" AND ");
}
