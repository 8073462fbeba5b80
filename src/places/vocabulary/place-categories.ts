import { BrandIndex } from "./brand-index.js";
import type { CategoryVocabulary } from "./category-vocabulary.js";

/** What a place's category tags are derived from when its source gave none. */
export interface CategorySources {
  /** Tags of the source itself (OSM); [] or absent when it has none. */
  tags?: readonly string[];
  categories: readonly string[];
  name: string;
  brand: string | null;
  lat: number;
  lng: number;
}

/**
 * The category tag terms of a place: its source's own (OSM tags), else those its
 * category labels mean in the vocabulary (a CSV row's "Zahnarzt", an Overture
 * "italian_restaurant"), else, for a place without any category, its brand's in the
 * name-suggestion-index ("Lidl" is a supermarket). Both look-ups are loaded on first use
 * (the brand index is 12 MB of JSON: an import whose places all have categories never
 * loads it).
 */
export class PlaceCategorizer {
  constructor(private readonly vocabulary: () => CategoryVocabulary) {}

  /**
   * The tags, and the text of the labels the index searches as words: every label of a
   * place without tags, and of a place with tags only the labels that gave none (a CSV's
   * "key account" beside "bakery"), which would otherwise be found by nothing.
   */
  categorize(place: CategorySources): { tags: string[]; labelText: string } {
    const tags = this.tagsOf(place);
    return { tags, labelText: labelTextBesideTags(place, tags, this.vocabulary) };
  }

  tagsOf(place: CategorySources): string[] {
    if (place.tags && place.tags.length > 0) return [...place.tags];
    if (place.categories.length > 0) return this.vocabulary().tagsOfLabels(place.categories);
    return BrandIndex.shared().tagsOf([place.brand, place.name], place);
  }
}

/**
 * The labels a place's tags do not say, as one text (`places.category_text`, which the
 * index reads as words). A source's own tags (OSM) say all its labels, which are made from
 * them; tags the vocabulary gave say the labels it knows, and the rest stays text.
 */
export function labelTextBesideTags(place: Pick<CategorySources, "tags" | "categories">, tags: readonly string[], vocabulary: () => CategoryVocabulary): string {
  if (tags.length === 0) return place.categories.join(" ");
  if (place.tags && place.tags.length > 0) return "";
  return place.categories.filter((label) => vocabulary().tagsOfLabels([label]).length === 0).join(" ");
}
