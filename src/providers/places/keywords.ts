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

/** The searchable text of a place, by field (the same fields the FTS index holds). */
export interface SearchableText {
  name: string;
  category_text: string;
  cuisine: string | null;
  brand: string | null;
  description: string | null;
}

/**
 * Field weights of the relevance score: a keyword in the name or the category says far
 * more about a business than one in a free-text description.
 */
const FIELD_WEIGHTS: ReadonlyArray<[keyof SearchableText, number]> = [
  ["name", 10],
  ["category_text", 6],
  ["cuisine", 3],
  ["brand", 3],
  ["description", 1],
];

/** BM25's parameters, applied per field (BM25F-style) with the field's own length. */
const K1 = 1.2;
const B = 0.75;
const AVERAGE_TOKENS: Record<keyof SearchableText, number> = { name: 3, category_text: 2, cuisine: 1, brand: 1, description: 12 };

const NON_ASCII = /[^\x00-\x7f]/;

/** Words of a field, folded like the FTS tokenizer; ASCII text skips the (costly) Unicode normalisation. */
function tokens(text: string | null): string[] {
  if (!text) return [];
  const folded = NON_ASCII.test(text) ? normaliseKey(text) : text.toLowerCase();
  return folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * The keyword test and relevance of the lead search, in one pass over a place's text:
 * every term must prefix-match a word of some field (as the FTS query does); the score
 * sums, per term and field, a BM25-shaped term-frequency saturation with length
 * normalisation, weighted by field, plus a bonus when the word is the keyword itself
 * rather than a longer word it starts. Higher is better. Computed in JavaScript so that
 * both query plans (FTS-first and box-first) rank identically.
 */
export function relevanceScorer(terms: readonly KeywordTerm[]): (text: SearchableText) => number | undefined {
  return (text) => {
    let total = 0;
    const fields = FIELD_WEIGHTS.map(([field, weight]) => ({ field, weight, words: tokens(text[field]) }));
    for (const term of terms) {
      let termScore = 0;
      for (const { field, weight, words } of fields) {
        if (words.length === 0) continue;
        let tf = 0;
        let exact = false;
        for (const w of words) {
          if (term.prefixes.some((p) => w.startsWith(p))) {
            tf++;
            if (w === term.word || term.prefixes.includes(w)) exact = true;
          }
        }
        if (tf === 0) continue;
        const norm = 1 - B + (B * words.length) / AVERAGE_TOKENS[field];
        termScore += weight * ((tf * (K1 + 1)) / (tf + K1 * norm)) * (exact ? 1.2 : 1);
      }
      if (termScore === 0) return undefined;
      total += termScore;
    }
    return total;
  };
}
