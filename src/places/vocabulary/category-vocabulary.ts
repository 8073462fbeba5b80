import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildVocabulary, installedVocabularyStamp, phraseKey, readBuiltVocabulary, type VocabularyData } from "./vocabulary-build.js";

export { phraseKey };

/**
 * What a category word means, in tag terms: any of `alternatives` (each a conjunction of
 * terms, "amenity=restaurant" and "cuisine=pizza"), best first. `hosts` are the business
 * tags of those alternatives: a place with one of them may also match the word by its
 * name ("Pizzeria Roma", a restaurant with no cuisine tag, for "pizza").
 */
export interface CategoryConcept {
  alternatives: readonly (readonly string[])[];
  hosts: readonly string[];
}

/** A phrase found in the vocabulary, in the form it was found under ("ravintolat" → "ravintola"). */
export interface VocabularyHit {
  phrase: string;
  concept: CategoryConcept;
}

/** Longest phrase (in words) a query is compared with: "fish and chips shop". */
export const MAX_PHRASE_WORDS = 4;
/** Words shorter than this are not looked up alone (articles and prepositions of some language). */
const MIN_WORD_LENGTH = 3;

/**
 * Inflections tried, in order, when a word is not in the vocabulary as typed, or only as
 * a weak search term: plurals of the languages the search is measured in.
 */
const INFLECTIONS: ReadonlyArray<[suffix: string, replacement: string]> = [
  ["ies", "y"], // bakeries → bakery
  ["es", ""], // boxes
  ["s", ""], // dentists, cafés, restaurants
  ["en", ""], // Bäckereien → Bäckerei
  ["n", ""], // Konditoreien
  ["e", ""], // Zahnärzte, Friseure
  ["t", ""], // ravintolat, kahvilat (Finnish)
  ["i", "e"], // ristoranti → ristorante
  ["i", "o"], // negozi → negozio
  ["e", "a"], // pizzerie → pizzeria
  ["er", ""], // restauranter
];

/** Damerau–Levenshtein distance ≤ 1: one insertion, deletion, substitution or swap of neighbours. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * The multilingual category vocabulary of the lead search (built by `vocabulary-build.ts`):
 * folded phrases in ≈ 130 languages → the tags they mean. "Zahnarzt", "dentiste" and
 * "hammaslääkäri" all become `amenity=dentist | healthcare=dentist`.
 */
export class CategoryVocabulary {
  /** The phrases in code-unit order (the data's order): found by binary search. */
  private readonly phrases: string[];
  private readonly concepts: CategoryConcept[];
  /** Single-word phrases by length, for typo correction (built on the first typo). */
  private wordsByLength: Map<number, string[]> | undefined;

  constructor(readonly data: VocabularyData) {
    this.concepts = data.concepts.map(([alternatives, hosts]) => ({ alternatives, hosts }));
    this.phrases = data.phrases.split("\n");
  }

  private entry(phrase: string): { concept: CategoryConcept; strength: number; standing: number } | undefined {
    let lo = 0;
    let hi = this.phrases.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const p = this.phrases[mid]!;
      if (p === phrase) return { concept: this.concepts[this.data.concept[mid]!]!, strength: this.data.strength[mid]!, standing: this.data.standing[mid]! };
      if (p < phrase) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Every phrase with its concept (for benches that index the vocabulary's words). */
  *entries(): Generator<[phrase: string, concept: CategoryConcept]> {
    for (let i = 0; i < this.phrases.length; i++) yield [this.phrases[i]!, this.concepts[this.data.concept[i]!]!];
  }

  /** The concept of a phrase (folded as `phraseKey` folds it). */
  concept(phrase: string): CategoryConcept | undefined {
    return this.entry(phrase)?.concept;
  }

  /**
   * A folded word as typed or in one of the plural forms of `INFLECTIONS` ("zahnarzte"
   * → "zahnarzt", "ravintolat" → "ravintola"). The form with the best standing wins (one
   * of our English labels, then a name in some language, then a mere search term): so
   * "bars" means what "bar" means, and "ristoranti" (an Italian search term of food
   * courts) what "ristorante" means. Ties go to the word as typed, then to the form more
   * languages agree on.
   */
  lookupWord(word: string): VocabularyHit | undefined {
    let best: { phrase: string; concept: CategoryConcept; strength: number; standing: number } | undefined;
    const exact = word.length >= MIN_WORD_LENGTH ? this.entry(word) : undefined;
    if (exact) best = { phrase: word, ...exact };
    if (word.length > MIN_WORD_LENGTH) {
      for (const [suffix, replacement] of INFLECTIONS) {
        if (!word.endsWith(suffix) || word.length - suffix.length < MIN_WORD_LENGTH) continue;
        const base = word.slice(0, -suffix.length) + replacement;
        const hit = this.entry(base);
        if (!hit || base === word) continue;
        const better = !best || hit.standing > best.standing || (hit.standing === best.standing && best.phrase !== word && hit.strength > best.strength);
        if (better) best = { phrase: base, ...hit };
      }
    }
    return best && { phrase: best.phrase, concept: best.concept };
  }

  /** The single-word phrase one edit away from `word` (same first letter) that the most languages agree on, if any. */
  closestWord(word: string): string | undefined {
    let best: { phrase: string; standing: number; strength: number } | undefined;
    for (const phrase of this.wordsWithinOneEdit(word)) {
      const e = this.entry(phrase)!;
      if (!best || e.standing > best.standing || (e.standing === best.standing && e.strength > best.strength)) best = { phrase, ...e };
    }
    return best?.phrase;
  }

  /** Single-word phrases one edit away from `word`, with its first letter. */
  wordsWithinOneEdit(word: string): string[] {
    if (!this.wordsByLength) {
      this.wordsByLength = new Map();
      for (const phrase of this.phrases) {
        if (phrase.includes(" ")) continue;
        const list = this.wordsByLength.get(phrase.length) ?? [];
        list.push(phrase);
        this.wordsByLength.set(phrase.length, list);
      }
    }
    const out: string[] = [];
    for (const length of [word.length, word.length - 1, word.length + 1]) {
      for (const candidate of this.wordsByLength.get(length) ?? []) {
        if (candidate[0] === word[0] && withinOneEdit(word, candidate)) out.push(candidate);
      }
    }
    return out;
  }

  /**
   * The tag terms of a place known only by category labels (a CSV row, an Overture
   * place): for each label that is a vocabulary phrase, its best meaning's terms.
   */
  tagsOfLabels(labels: readonly string[]): string[] {
    const terms = new Set<string>();
    for (const label of labels) {
      const key = phraseKey(label);
      const concept = key.includes(" ") ? this.concept(key) : this.lookupWord(key)?.concept;
      for (const term of concept?.alternatives[0] ?? []) terms.add(term);
    }
    return [...terms];
  }
}

let shared: CategoryVocabulary | undefined;

/**
 * The vocabulary of the installed packages, read once per process. The build ships it in
 * dist/ (`readBuiltVocabulary`), so a fresh machine reads it in tens of milliseconds.
 * Without a built copy of the installed packages' stamp (running from the sources, or
 * packages upgraded since the build) it is built, which reads ≈ 15 MB of translations
 * (seconds), and written to `cacheDir` (see `resolveCacheDir`: `$XDG_CACHE_HOME/outreach`),
 * where later processes (each CLI command is one) read it; a cache from other package
 * versions is rebuilt.
 */
export function loadCategoryVocabulary(cacheDir?: string): CategoryVocabulary {
  const stamp = installedVocabularyStamp();
  if (shared?.data.stamp === stamp) return shared;
  const file = cacheDir ? join(cacheDir, "category-vocabulary.json") : undefined;
  let data: VocabularyData | undefined = readBuiltVocabulary();
  if (!data && file) {
    try {
      const cached = JSON.parse(readFileSync(file, "utf8")) as VocabularyData;
      if (cached.stamp === stamp) data = cached;
    } catch {
      // No cache yet, or an unreadable one: build.
    }
  }
  if (!data) {
    data = buildVocabulary();
    if (file) {
      try {
        mkdirSync(cacheDir!, { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, JSON.stringify(data));
        renameSync(temporary, file);
      } catch {
        // A read-only data directory: every process builds its own.
      }
    }
  }
  shared = new CategoryVocabulary(data);
  return shared;
}
