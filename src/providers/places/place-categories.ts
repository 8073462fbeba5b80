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

  tagsOf(place: CategorySources): string[] {
    if (place.tags && place.tags.length > 0) return [...place.tags];
    if (place.categories.length > 0) return this.vocabulary().tagsOfLabels(place.categories);
    return BrandIndex.shared().tagsOf([place.brand, place.name], place);
  }
}
