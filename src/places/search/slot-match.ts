import { SEARCH_FIELDS, searchTokens, type SearchField } from "../store/search-tokens.js";
import type { QuerySlot } from "./keywords.js";
import { splitTagTerms } from "../vocabulary/place-tags.js";

/**
 * How well one place matches one slot of a query, the rule both the term-index search
 * and the text fallback apply, so both rank alike:
 *
 * - 3, category: the place's tags satisfy one of the slot's meanings ("Zahnarzt" and
 *   `amenity=dentist`), or the keyword is a whole word of its category labels (for a
 *   category word: only at a place whose labels gave it no tags);
 * - 2, name: a whole word of its name or brand is the keyword (or a compound it starts,
 *   when the keyword is long enough to say so: "Zahnarztpraxis");
 * - 1, weak: a name word merely starts with the keyword, or the word is in its cuisine
 *   or description;
 * - 0: no match.
 *
 * A category word matches names only where that cannot be a different business: at a
 * place of one of its hosts (a restaurant called "Pizzeria Roma" for "pizza") or at a
 * place with no category at all, and there only by a strong name match. So "bar" never
 * finds Barclays (a bank), a barber or "Barbican" (an arts centre), and "bank" no pub
 * called "The Old Bank". Descriptions never match a category word.
 *
 * A place's relevance is the sum over the slots; every slot must match.
 */

export const CATEGORY_MATCH = 3;
export const NAME_MATCH = 2;
export const WEAK_MATCH = 1;

/** What word hits a place has for a slot, as bits (a place's hits of one slot are OR-ed). */
export const HIT_NAME_EXACT = 1;
export const HIT_NAME_STRONG_PREFIX = 2;
export const HIT_NAME_PREFIX = 4;
export const HIT_LABEL_EXACT = 8;
export const HIT_LABEL_PREFIX = 16;
export const HIT_OTHER = 32;
/** Hits in a name or brand: what lets a category word match a place of its hosts. */
export const HIT_NAME = HIT_NAME_EXACT | HIT_NAME_STRONG_PREFIX | HIT_NAME_PREFIX;

const bitOf = (field: SearchField) => 1 << SEARCH_FIELDS.indexOf(field);
const NAME_BITS = bitOf("name") | bitOf("brand");
const LABEL_BIT = bitOf("category_text");
const OTHER_BITS = bitOf("cuisine") | bitOf("description");

/**
 * The hits of one word: it is in the fields of `fields` (bits in SEARCH_FIELDS order),
 * equal to one of the slot's exact words or not, reached by a strong prefix or not.
 */
export function wordHits(fields: number, exact: boolean, strongPrefix: boolean): number {
  let hits = 0;
  if (fields & NAME_BITS) hits |= exact ? HIT_NAME_EXACT : strongPrefix ? HIT_NAME_STRONG_PREFIX : HIT_NAME_PREFIX;
  if (fields & LABEL_BIT) hits |= exact ? HIT_LABEL_EXACT : HIT_LABEL_PREFIX;
  if (fields & OTHER_BITS) hits |= HIT_OTHER;
  return hits;
}

/**
 * The slot's match for a place whose tags set `tagMask` (bits over `slot.tagTerms`),
 * whose word hits are `hits`, and which has category tags at all or not.
 */
export function slotKind(slot: QuerySlot, tagMask: number, hits: number, categorized: boolean): number {
  if (!slot.concept) {
    if (hits & HIT_LABEL_EXACT) return CATEGORY_MATCH;
    if (hits & HIT_NAME_EXACT) return NAME_MATCH;
    return hits ? WEAK_MATCH : 0;
  }
  for (const alternative of slot.alternatives) if ((tagMask & alternative) === alternative) return CATEGORY_MATCH;
  // A label the place's tags do not say (a tagged place's category_text holds only those) is the user's word for it.
  if (hits & HIT_LABEL_EXACT) return CATEGORY_MATCH;
  const strong = hits & (HIT_NAME_EXACT | HIT_NAME_STRONG_PREFIX);
  if (tagMask & slot.hostMask) return strong || hits & HIT_NAME_PREFIX ? NAME_MATCH : 0;
  return !categorized && strong ? NAME_MATCH : 0;
}

/** A place's searchable text and category tags, as the text fallback reads them. */
export interface SearchableText {
  name: string;
  category_text: string;
  cuisine: string | null;
  brand: string | null;
  description: string | null;
  category_tags: string | null;
}

/**
 * The same rules over a place's text: its relevance, or undefined when a slot does not
 * match. For the circles the term index cannot list (near a pole) and for tests that
 * hold the index to it.
 */
export function textMatcher(slots: readonly QuerySlot[]): (place: SearchableText) => number | undefined {
  return (place) => {
    const tags = new Set(splitTagTerms(place.category_tags));
    // As the term index: every field (a tagged place's category_text holds only the labels its tags do not say, see `termRowsOf`).
    const fields = SEARCH_FIELDS.map((field) => searchTokens(place[field]));
    let total = 0;
    for (const slot of slots) {
      let tagMask = 0;
      slot.tagTerms.forEach((term, i) => {
        if (tags.has(term)) tagMask |= 1 << i;
      });
      let hits = 0;
      for (let f = 0; f < fields.length; f++) {
        for (const word of fields[f]!) {
          const prefix = slot.prefixes.find((p) => word.startsWith(p.prefix));
          if (prefix) hits |= wordHits(1 << f, slot.exactWords.includes(word), prefix.strong);
        }
      }
      const kind = slotKind(slot, tagMask, hits, tags.size > 0);
      if (kind === 0) return undefined;
      total += kind;
    }
    return total;
  };
}
