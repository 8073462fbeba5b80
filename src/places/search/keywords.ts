import { searchTokens } from "../store/search-tokens.js";
import { MAX_PHRASE_WORDS, type CategoryConcept, type CategoryVocabulary } from "../vocabulary/category-vocabulary.js";

/**
 * The user's keywords as the lead search reads them: slots that must all match (AND).
 * A slot is either a category word or phrase of the vocabulary ("Zahnarzt", "italian
 * restaurant"), matched first by the places' category tags, or a plain word (a name,
 * "Müller", "Starbucks"), matched as a word prefix in the places' text.
 */
export interface QuerySlot {
  /** The words of the slot as typed (folded). */
  text: string;
  /** What the slot means as a category, when it names one. */
  concept?: CategoryConcept;
  /** Distinct tag terms to read for it: the alternatives' terms, then the hosts'. */
  tagTerms: string[];
  /** One bit mask over `tagTerms` per alternative: a place matches the category when it has every term of one. */
  alternatives: number[];
  /** Bits of the hosts' terms: a place with one of them may also match by name. */
  hostMask: number;
  /** Word prefixes to read, each with whether a word it merely starts is still a strong match. */
  prefixes: WordPrefix[];
  /** The words that count as the keyword itself (the typed word, its singular and stem): at most four. */
  exactWords: string[];
}

export interface WordPrefix {
  prefix: string;
  /** A word this prefix starts (a compound: "Zahnarztpraxis") counts as strongly as the word itself. */
  strong: boolean;
}

const MAX_SLOTS = 8;
/** A prefix this long or longer that starts a name word names the thing ("zahnarzt" in "Zahnarztpraxis"); a shorter one may not ("bar" in "Barclays"). */
const STRONG_PREFIX = 5;
const MAX_TAG_TERMS = 31;

/** The shortest form whose prefix covers both singular and plural of a regular English noun. */
function englishStems(word: string): string[] {
  const out = new Set([word]);
  if (word.length >= 5 && word.endsWith("ies")) out.add(word.slice(0, -3)); // bakeries → baker(y|ies)
  else if (word.length >= 4 && /[^aeiou]y$/.test(word)) out.add(word.slice(0, -1)); // bakery → baker*
  else if (word.length >= 5 && /(ss|x|z|ch|sh)es$/.test(word)) out.add(word.slice(0, -2)); // boxes → box
  else if (word.length >= 4 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) out.add(word.slice(0, -1)); // dentists → dentist
  return [...out];
}

/** Forms without those a shorter one already covers as a prefix. */
function withoutCovered(forms: Iterable<string>): string[] {
  const list = [...new Set(forms)].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  return list.filter((w, i) => !list.slice(0, i).some((shorter) => w.startsWith(shorter)));
}

/** A plain word: every field's words, as a prefix, English plurals folded onto the singular. */
function plainSlot(word: string): QuerySlot {
  const stems = englishStems(word);
  return {
    text: word,
    tagTerms: [],
    alternatives: [],
    hostMask: 0,
    prefixes: withoutCovered(stems).map((prefix) => ({ prefix, strong: true })),
    exactWords: stems.slice(0, 4),
  };
}

/**
 * A category slot: its tags, and the name forms that may also find a place of one of its
 * hosts or of no category at all ("pizza" → "pizz", the stem "Pizzeria" starts).
 */
function categorySlot(text: string, concept: CategoryConcept, nameForms: string[]): QuerySlot {
  // One bit per distinct tag term (a place's tags are a 32-bit mask per slot): the
  // meanings first, then the hosts while bits remain (a host left out only costs a name match).
  const tagTerms: string[] = [];
  const bit = (term: string): number | undefined => {
    let i = tagTerms.indexOf(term);
    if (i < 0 && tagTerms.length < MAX_TAG_TERMS) i = tagTerms.push(term) - 1;
    return i < 0 ? undefined : 1 << i;
  };
  const alternatives: number[] = [];
  for (const alternative of concept.alternatives) {
    if (alternative.some((t) => !tagTerms.includes(t)) && tagTerms.length + alternative.length > MAX_TAG_TERMS) continue;
    alternatives.push(alternative.reduce((mask, term) => mask | bit(term)!, 0));
  }
  let hostMask = 0;
  for (const host of concept.hosts) hostMask |= bit(host) ?? 0;
  const forms = withoutCovered(nameForms);
  return {
    text,
    concept,
    tagTerms,
    alternatives,
    hostMask,
    prefixes: forms.map((prefix) => ({ prefix, strong: prefix.length >= STRONG_PREFIX })),
    exactWords: [...new Set(nameForms)].slice(0, 4),
  };
}

/** A word's stem for name matching: without a final vowel ("pizza" → "pizz", which "Pizzeria" starts). */
function stemOf(word: string): string {
  return word.length >= STRONG_PREFIX && /[aeiou]$/.test(word) ? word.slice(0, -1) : word;
}

/** Stems of the one-word cuisines a concept means: "Pizzeria" also finds a restaurant called "La Pizzetta". */
function cuisineStems(concept: CategoryConcept): string[] {
  const stems: string[] = [];
  for (const alternative of concept.alternatives) {
    for (const term of alternative) {
      const value = term.startsWith("cuisine=") ? term.slice("cuisine=".length) : "";
      if (/^[a-z]+$/.test(value)) stems.push(stemOf(value));
    }
  }
  return stems;
}

/** Whether every alternative of a concept is a cuisine alone ("pizza", "italian"). */
function isCuisine(concept: CategoryConcept): boolean {
  return concept.alternatives.every((a) => a.length === 1 && a[0]!.startsWith("cuisine="));
}

/**
 * Whether a phrase that means a cuisine is a cuisine word and words of a kind of place,
 * each a category of its own ("italian restaurant"): then both must hold (an Italian café
 * is no Italian restaurant), where the phrase alone means the cuisine anywhere.
 */
function splitsIntoCuisineAndPlace(words: readonly string[], vocabulary: CategoryVocabulary): boolean {
  const concepts = words.map((w) => vocabulary.lookupWord(w)?.concept);
  return concepts.every((c) => c !== undefined) && concepts.some((c) => isCuisine(c!)) && concepts.some((c) => !isCuisine(c!));
}

/**
 * The keywords as slots. Words are folded like the index's words (`searchTokens`); the
 * longest run of words that is a vocabulary phrase becomes one category slot ("ice
 * cream"; but "italian restaurant" is two slots, see `splitsIntoCuisineAndPlace`); a
 * single word is looked up with its plural forms
 * ("Zahnärzte"); anything else is a plain word. One-letter words are dropped unless they
 * are all there is; at most eight slots.
 */
export function parseKeywords(keywords: string, vocabulary: CategoryVocabulary | undefined): QuerySlot[] {
  const all = searchTokens(keywords);
  const useful = all.filter((w) => w.length >= 2);
  const words = useful.length ? useful : all;
  const slots: QuerySlot[] = [];
  const seen = new Set<string>();
  const push = (slot: QuerySlot) => {
    if (seen.has(slot.text)) return;
    seen.add(slot.text);
    slots.push(slot);
  };
  for (let i = 0; i < words.length && slots.length < MAX_SLOTS; ) {
    let taken = 0;
    for (let n = Math.min(MAX_PHRASE_WORDS, words.length - i); n >= 2 && vocabulary; n--) {
      const phrase = words.slice(i, i + n).join(" ");
      const concept = vocabulary.concept(phrase);
      if (concept && !(isCuisine(concept) && splitsIntoCuisineAndPlace(words.slice(i, i + n), vocabulary))) {
        push(categorySlot(phrase, concept, []));
        taken = n;
        break;
      }
    }
    if (taken === 0) {
      const word = words[i]!;
      const hit = vocabulary?.lookupWord(word);
      push(hit ? categorySlot(word, hit.concept, [word, hit.phrase, stemOf(hit.phrase), ...cuisineStems(hit.concept)]) : plainSlot(word));
      taken = 1;
    }
    i += taken;
  }
  return slots;
}
