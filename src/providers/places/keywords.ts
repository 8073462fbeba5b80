import { SEARCH_FIELDS, searchTokens, type SearchField } from "../../core/search-tokens.js";
import { normaliseKey } from "../../core/text.js";

/**
 * One keyword as prefixes to look up: "dentists" → ["dentists", "dentist"], "bakeries"
 * → ["bakeries", "baker"], "cafés" → ["cafes", "cafe"]. Each is looked up as a word prefix in the term index
 * ("dentist" also finds "Dentists Vaduz"), so singular and plural find each other.
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

/** The searchable text of a place, by field (SEARCH_FIELDS: the same fields the term and FTS indexes hold). */
export interface SearchableText {
  name: string;
  category_text: string;
  cuisine: string | null;
  brand: string | null;
  description: string | null;
}

/**
 * Field weights of the relevance score, in SEARCH_FIELDS order: a keyword in the name or
 * the category says far more about a business than one in a free-text description.
 */
const FIELD_WEIGHTS: Readonly<Record<SearchField, number>> = { name: 10, category_text: 6, cuisine: 3, brand: 3, description: 1 };

/** BM25's parameters, applied per field (BM25F-style) with the field's own length. */
const K1 = 1.2;
const B = 0.75;
const AVERAGE_TOKENS: Record<SearchField, number> = { name: 3, category_text: 2, cuisine: 1, brand: 1, description: 12 };

/**
 * One term's score in one field: a BM25-shaped term-frequency saturation with length
 * normalisation, weighted by field, plus a bonus when a matching word is the keyword
 * itself rather than a longer word it starts. `field` indexes SEARCH_FIELDS. Shared by
 * the text scorer below and the term-index search (which reads `tf` and `words` from the
 * index instead of the text), so both rank identically to the last bit.
 */
export function fieldTermScore(field: number, tf: number, words: number, exact: boolean): number {
  const name = SEARCH_FIELDS[field]!;
  const norm = 1 - B + (B * words) / AVERAGE_TOKENS[name];
  return FIELD_WEIGHTS[name] * ((tf * (K1 + 1)) / (tf + K1 * norm)) * (exact ? 1.2 : 1);
}

/** Whether a word of a place matches a term (prefix), and whether it is the keyword itself. */
export function termMatch(term: KeywordTerm, word: string): { matches: boolean; exact: boolean } {
  const matches = term.prefixes.some((p) => word.startsWith(p));
  return { matches, exact: matches && (word === term.word || term.prefixes.includes(word)) };
}

/**
 * The keyword test and relevance of the lead search, in one pass over a place's text:
 * every term must prefix-match a word of some field (as the FTS query does); the score
 * sums `fieldTermScore` per term and field, terms in order, fields in SEARCH_FIELDS
 * order. Higher is better; undefined when some term matches nowhere.
 */
export function relevanceScorer(terms: readonly KeywordTerm[]): (text: SearchableText) => number | undefined {
  return (text) => {
    let total = 0;
    const fields = SEARCH_FIELDS.map((field) => searchTokens(text[field]));
    for (const term of terms) {
      let termScore = 0;
      for (let f = 0; f < fields.length; f++) {
        const words = fields[f]!;
        if (words.length === 0) continue;
        let tf = 0;
        let exact = false;
        for (const w of words) {
          const m = termMatch(term, w);
          if (m.matches) {
            tf++;
            if (m.exact) exact = true;
          }
        }
        if (tf === 0) continue;
        termScore += fieldTermScore(f, tf, words.length, exact);
      }
      if (termScore === 0) return undefined;
      total += termScore;
    }
    return total;
  };
}
