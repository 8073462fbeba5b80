/**
 * A place's categories as OSM tag terms ("amenity=dentist", "cuisine=pizza"): what the
 * lead search matches category words against, in any language (the vocabulary turns
 * "Zahnarzt" into `amenity=dentist`). One small set of terms per place: the values of
 * its business keys and of the qualifier keys that narrow them. Places from OSM get them
 * from their tags; places from other sources from their category labels (through the
 * vocabulary) or their brand (through the name-suggestion-index).
 */

/** The tags that make an element a business (docs/api.md, "Places index"). */
export const BUSINESS_KEYS = ["shop", "amenity", "craft", "office", "healthcare", "tourism"] as const;

/** Keys that narrow a business tag and are indexed too: `cuisine=pizza` on a restaurant or a fast food place. */
export const QUALIFIER_KEYS = ["cuisine", "healthcare:speciality"] as const;

/**
 * Places that serve food: where a cuisine word ("pizza", "sushi") may also find a place
 * by its name ("Pizzeria Roma" tagged only `amenity=restaurant`).
 */
export const FOOD_HOSTS: readonly string[] = [
  "amenity=restaurant", "amenity=fast_food", "amenity=cafe", "amenity=bar", "amenity=pub", "amenity=biergarten",
  "amenity=food_court", "amenity=ice_cream", "shop=deli", "shop=bakery", "shop=pastry",
];

/**
 * Values of the business keys that are street furniture, public infrastructure or
 * landmarks rather than businesses one could contact.
 */
const INFRASTRUCTURE: Readonly<Record<string, ReadonlySet<string>>> = {
  amenity: new Set([
    "parking", "parking_space", "parking_entrance", "bicycle_parking", "motorcycle_parking", "bench", "toilets",
    "place_of_worship", "atm", "waste_basket", "waste_disposal", "recycling", "drinking_water", "fountain", "shelter",
    "telephone", "post_box", "vending_machine", "charging_station", "grave_yard", "clock", "hunting_stand", "give_box",
    "water_point", "compressed_air", "letter_box", "loading_dock", "bbq", "watering_place", "lounger", "table",
    "bicycle_repair_station", "device_charging_station", "dog_toilet", "feeding_place", "shower", "public_bookcase",
    "ticket_validator", "sanitary_dump_station", "photo_booth", "parcel_locker", "payment_terminal", "smoking_area",
    "bus_station", "taxi", "ferry_terminal", "police", "fire_station", "townhall", "courthouse", "prison",
    "grit_bin", "trolley_bay", "kneipp_water_cure", "bicycle_rental", "car_sharing", "motorcycle_rental", "boat_rental",
    "baby_hatch", "emergency_phone", "refugee_site", "social_facility", "public_bath", "monastery", "crematorium",
    "mortuary", "waste_transfer_station", "weighbridge", "yes",
  ]),
  tourism: new Set([
    "artwork", "information", "viewpoint", "picnic_site", "attraction", "camp_pitch", "yes", "trail_riding_station",
  ]),
  shop: new Set(["vacant", "no", "disused"]),
  office: new Set(["vacant", "no"]),
  craft: new Set(["no"]),
  healthcare: new Set(["no"]),
};

/** Values that say "yes, some kind of" and carry no category of their own. */
export const GENERIC_VALUES: ReadonlySet<string> = new Set(["yes", "no", "other", "unknown", "fixme", "*"]);

export function isInfrastructure(key: string, value: string): boolean {
  return INFRASTRUCTURE[key]?.has(value.trim().toLowerCase()) ?? false;
}

const BUSINESS: ReadonlySet<string> = new Set(BUSINESS_KEYS);
const QUALIFIERS: ReadonlySet<string> = new Set(QUALIFIER_KEYS);

export function isBusinessKey(key: string): boolean {
  return BUSINESS.has(key);
}
export function isQualifierKey(key: string): boolean {
  return QUALIFIERS.has(key);
}

/** The term of one tag: key and value lower-cased, spaces as `_` (a value may hold none of the term's separators). */
export function tagTerm(key: string, value: string): string {
  return `${key.trim().toLowerCase()}=${value.trim().toLowerCase().replace(/\s+/g, "_")}`;
}

/** The values of a `;`-separated tag that say something: trimmed, lower case, generic ones dropped. */
export function tagValues(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(";")
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== "" && !GENERIC_VALUES.has(v));
}

/**
 * The category terms of an OSM element: its business tags (minus infrastructure and
 * generic values) and its qualifiers, in a stable order without repeats.
 */
export function osmTagTerms(tags: Readonly<Record<string, string>>): string[] {
  const terms = new Set<string>();
  for (const key of BUSINESS_KEYS) {
    for (const value of tagValues(tags[key])) if (!isInfrastructure(key, value)) terms.add(tagTerm(key, value));
  }
  if (terms.size === 0) return [];
  for (const key of QUALIFIER_KEYS) for (const value of tagValues(tags[key])) terms.add(tagTerm(key, value));
  return [...terms];
}

/** The space-separated column form (`places.category_tags`) and back. */
export function joinTagTerms(terms: readonly string[]): string {
  return terms.join(" ");
}
export function splitTagTerms(text: string | null | undefined): string[] {
  return text ? text.split(" ").filter(Boolean) : [];
}

/** Whether a term names a business category (rather than a qualifier such as a cuisine). */
export function isBusinessTerm(term: string): boolean {
  return BUSINESS.has(term.slice(0, term.indexOf("=")));
}
