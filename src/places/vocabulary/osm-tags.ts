import type { Socials } from "../../core/schemas/lead.js";
import { osmCategoryLabels } from "./category-labels.js";
import {
  BOUNDS,
  cleanCategories,
  cleanCountry,
  cleanEmail,
  cleanPhone,
  cleanSocial,
  cleanText,
  addressLine,
  coordinatesAddress,
  socialsOrNull,
  socialNetworkOfDomain,
  websiteWithDomain,
} from "../../core/lead-values.js";
import type { ImportItem, NamedPlaceKind, PlaceRecord } from "../import/place-record.js";
import { BUSINESS_KEYS, isInfrastructure, osmTagTerms, QUALIFIER_KEYS } from "./place-tags.js";
import { isBlank } from "../../core/text.js";

/** The business keys present on an element, or [] if none (or only infrastructure). */
function businessKeysOf(tags: Record<string, string>): { keys: string[]; infrastructureOnly: boolean } {
  const keys: string[] = [];
  let any = false;
  for (const key of BUSINESS_KEYS) {
    const value = tags[key];
    if (value === undefined) continue;
    any = true;
    if (!isInfrastructure(key, value)) keys.push(key);
  }
  return { keys, infrastructureOnly: any && keys.length === 0 };
}

/**
 * Why an element with a business tag cannot make a place, or null when it can. Tells the
 * importers which ways need their nodes' coordinates at all.
 */
export function osmSkipReason(tags: Record<string, string>): "unnamed" | "infrastructure" | null {
  const { keys, infrastructureOnly } = businessKeysOf(tags);
  if (keys.length === 0) return infrastructureOnly ? "infrastructure" : "unnamed";
  return cleanText(tags.name ?? tags.brand, BOUNDS.name) ? null : "unnamed";
}

/** Whether any business key is present (an element without one is not counted at all). */
export function hasBusinessTag(tags: Record<string, string> | undefined): tags is Record<string, string> {
  if (!tags) return false;
  for (const key of BUSINESS_KEYS) if (tags[key] !== undefined) return true;
  return false;
}

/** `place=*` values the geocoder resolves by name, by kind. */
const NAMED_PLACES: Readonly<Record<string, NamedPlaceKind>> = {
  city: "city", town: "city", village: "city", hamlet: "city", municipality: "city",
  borough: "district", suburb: "district", quarter: "district", neighbourhood: "district",
  square: "square",
  locality: "locality",
};

/**
 * The kind of named place an element is for the geocoder, or null: a `place=*` of
 * NAMED_PLACES, or an administrative boundary of a municipality (admin_level 8, a city)
 * or a part of one (9 and more: districts such as Helsinki's "Kamppi"). Needs a name.
 */
export function osmNamedPlaceKind(tags: Record<string, string> | undefined): NamedPlaceKind | null {
  if (!tags?.name?.trim()) return null;
  const place = tags.place ? NAMED_PLACES[tags.place.trim().toLowerCase()] : undefined;
  if (place) return place;
  if (tags.boundary === "administrative") {
    const level = Number(tags.admin_level);
    if (level === 8) return "city";
    if (level >= 9 && level <= 11) return "district";
  }
  return null;
}

/** Whether a relation is an area (a multipolygon: a business mapped as one, or an administrative boundary). */
export function isAreaRelation(tags: Record<string, string>): boolean {
  return tags.type === "multipolygon" || tags.type === "boundary";
}

/** The tag keys the importers keep (everything else is dropped while parsing to save memory). */
export const KEPT_TAG_KEYS = [
  ...BUSINESS_KEYS,
  "place", "boundary", "admin_level", "type",
  "name", "brand", "operator", "cuisine", "healthcare:speciality", "description", "opening_hours",
  "website", "contact:website", "url", "phone", "contact:phone", "contact:mobile", "mobile",
  "email", "contact:email",
  "contact:facebook", "contact:instagram", "contact:twitter", "contact:linkedin", "facebook", "instagram", "twitter", "linkedin",
  "addr:housenumber", "addr:street", "addr:place", "addr:postcode", "addr:city", "addr:country", "addr:full",
];

/**
 * The keys of which an element needs at least one to be anything to the importers: a
 * business key, or `place`/`boundary` for a named place (`osmNamedPlaceKind`). An element
 * with kept tags but none of these (an address on a building, a named street) maps to
 * nothing, so the PBF decoder drops it before building its tags.
 */
export const MAPPED_ELEMENT_KEYS: readonly string[] = [...BUSINESS_KEYS, "place", "boundary"];

/** The first of `keys` with a value that is not blank. */
function first(tags: Record<string, string>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = tags[key];
    if (value !== undefined && !isBlank(value)) return value;
  }
  return undefined;
}

// Where each value may be, most usual first (constants: a key built per element costs a lookup of its own).
const WEBSITE_KEYS = ["website", "contact:website", "url"];
const PHONE_KEYS = ["phone", "contact:phone", "contact:mobile", "mobile"];
const EMAIL_KEYS = ["email", "contact:email"];
const SOCIAL_KEYS = (["facebook", "instagram", "twitter", "linkedin"] as const).map((network) => [network, [`contact:${network}`, network]] as const);

/**
 * One OSM element → a place or the reason it is skipped. `type` and
 * `id` make the stable place ID (`osm:node:123`).
 */
export function osmElementToItem(type: "node" | "way" | "relation", id: number, tags: Record<string, string>, lat: number, lng: number): ImportItem {
  const item = osmUnplacedItem(type, id, tags);
  return item.kind === "skip" ? item : { kind: "place", place: placeAt(item.place, lat, lng) };
}

/**
 * A place's fields that do not depend on where it is: all but its point, and its address
 * unless its tags make one (null: the coordinates will be the address).
 */
export type UnplacedPlace = Omit<PlaceRecord, "lat" | "lng" | "address"> & { address: string | null };

/**
 * `osmElementToItem` before the element's point is known: a way's or a relation's comes
 * from its nodes, two passes later. The fields are worked out at once (where the tags are
 * at hand, in the decoding thread), and only `placeAt` waits for the point.
 */
export function osmUnplacedItem(type: "node" | "way" | "relation", id: number, tags: Record<string, string>): { kind: "skip"; reason: "unnamed" | "infrastructure" } | { kind: "unplaced"; place: UnplacedPlace } {
  // osmSkipReason's rules, with the keys and the name kept for what follows.
  const { keys, infrastructureOnly } = businessKeysOf(tags);
  if (keys.length === 0) return { kind: "skip", reason: infrastructureOnly ? "infrastructure" : "unnamed" };
  const name = cleanText(tags.name ?? tags.brand, BOUNDS.name);
  if (!name) return { kind: "skip", reason: "unnamed" };

  const checked = websiteWithDomain(first(tags, WEBSITE_KEYS));
  let website = checked?.href ?? null;
  const socials: Socials = {};
  for (const [network, socialKeys] of SOCIAL_KEYS) {
    const raw = first(tags, socialKeys);
    const value = raw === undefined ? null : cleanSocial(network, raw);
    if (value) socials[network] = value;
  }
  // A "website" that is a Facebook or Instagram page is a social profile, not a site.
  if (website) {
    const network = socialNetworkOfDomain(checked!.domain);
    if (network) {
      socials[network] ??= cleanSocial(network, website) ?? undefined;
      if (socials[network] === undefined) delete socials[network];
      website = null;
    }
  }
  const street = cleanText(tags["addr:street"] ?? tags["addr:place"]);
  const housenumber = cleanText(tags["addr:housenumber"], 40);
  const postcode = cleanText(tags["addr:postcode"], 20);
  const city = cleanText(tags["addr:city"], 100);
  const country = cleanCountry(tags["addr:country"]);
  const { categories, terms, cuisine } = categoryFieldsOf(tags, keys);
  return {
    kind: "unplaced",
    place: {
      placeId: `osm:${type}:${id}`,
      name,
      address: addressLine({ street, housenumber, postcode, city, country, full: cleanText(tags["addr:full"], 300) }),
      street,
      housenumber,
      postcode,
      city,
      country,
      website,
      phone: cleanPhone(first(tags, PHONE_KEYS)),
      email: cleanEmail(first(tags, EMAIL_KEYS)),
      socials: socialsOrNull(socials),
      rating: null,
      categories,
      tags: terms,
      cuisine,
      brand: cleanText(tags.brand),
      description: cleanText(tags.description, BOUNDS.description),
      openingHours: cleanText(tags.opening_hours, BOUNDS.openingHours),
      provenance: null,
    },
  };
}

/** The tags a place's category fields depend on, and nothing else. */
const CATEGORY_KEYS: readonly string[] = [...BUSINESS_KEYS, ...QUALIFIER_KEYS];

interface CategoryFields {
  /** Frozen (shared by every place with these values; a place's fields are never changed in place). */
  categories: string[];
  terms: string[];
  cuisine: string | null;
}

/**
 * Category fields by the exact values of CATEGORY_KEYS: a pure function of few distinct
 * inputs (a country's two million businesses have a few thousand combinations of
 * `amenity=restaurant` + `cuisine=pizza`), each worked out once instead of per place.
 * A trie of Maps, one level per key, by the value itself (or undefined): a string's hash
 * is computed once and kept by V8, where a key made by joining the values costs a new
 * string and its hash per place. The arrays are shared between places, so frozen.
 * Emptied when it grows large (a file of unusual values), which only costs the work again.
 */
type CategoryTrie = Map<string | undefined, CategoryTrie | CategoryFields>;
let categoryMemo: CategoryTrie = new Map();
let categoryMemoSize = 0;
const CATEGORY_MEMO_LIMIT = 50_000;

function categoryFieldsOf(tags: Record<string, string>, keys: string[]): CategoryFields {
  let node = categoryMemo;
  const last = CATEGORY_KEYS.length - 1;
  for (let i = 0; i < last; i++) {
    const value = tags[CATEGORY_KEYS[i]!];
    let next = node.get(value) as CategoryTrie | undefined;
    if (next === undefined) node.set(value, (next = new Map()));
    node = next;
  }
  const value = tags[CATEGORY_KEYS[last]!];
  let fields = node.get(value) as CategoryFields | undefined;
  if (fields === undefined) {
    fields = {
      categories: Object.freeze(cleanCategories(osmCategoryLabels(tags, keys))) as string[],
      terms: Object.freeze(osmTagTerms(tags)) as string[],
      cuisine: cleanText(tags.cuisine?.replace(/;/g, "; ").replace(/_/g, " ")),
    };
    if (++categoryMemoSize > CATEGORY_MEMO_LIMIT) {
      categoryMemo = new Map();
      categoryMemoSize = 0;
    } else node.set(value, fields);
  }
  return fields;
}

/** An unplaced place at its point (the fields in the order `osmElementToItem` always gave them). */
export function placeAt(place: UnplacedPlace, lat: number, lng: number): PlaceRecord {
  return {
    placeId: place.placeId,
    name: place.name,
    address: place.address ?? coordinatesAddress(lat, lng),
    street: place.street,
    housenumber: place.housenumber,
    postcode: place.postcode,
    city: place.city,
    country: place.country,
    lat,
    lng,
    website: place.website,
    phone: place.phone,
    email: place.email,
    socials: place.socials,
    rating: place.rating,
    categories: place.categories,
    tags: place.tags,
    cuisine: place.cuisine,
    brand: place.brand,
    description: place.description,
    openingHours: place.openingHours,
    provenance: place.provenance,
  };
}
