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
  cleanWebsite,
  formatAddress,
  socialsOrNull,
  socialNetworkOf,
} from "../../core/lead-values.js";
import type { ImportItem } from "./place-record.js";

/** The tags that make an element a business (docs/api.md, "Places index"). */
export const BUSINESS_KEYS = ["shop", "amenity", "craft", "office", "healthcare", "tourism"] as const;

/**
 * Values of the business keys that are street furniture, public infrastructure or
 * landmarks rather than businesses one could contact.
 */
const INFRASTRUCTURE: Record<string, ReadonlySet<string>> = {
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

/** The business keys present on an element, or [] if none (or only infrastructure). */
function businessKeysOf(tags: Record<string, string>): { keys: string[]; infrastructureOnly: boolean } {
  const keys: string[] = [];
  let any = false;
  for (const key of BUSINESS_KEYS) {
    const value = tags[key];
    if (value === undefined) continue;
    any = true;
    if (!INFRASTRUCTURE[key]?.has(value.trim().toLowerCase())) keys.push(key);
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

/** The tag keys the importers keep (everything else is dropped while parsing to save memory). */
export const KEPT_TAG_KEYS = [
  ...BUSINESS_KEYS,
  "name", "brand", "operator", "cuisine", "description", "opening_hours",
  "website", "contact:website", "url", "phone", "contact:phone", "contact:mobile", "mobile",
  "email", "contact:email",
  "contact:facebook", "contact:instagram", "contact:twitter", "contact:linkedin", "facebook", "instagram", "twitter", "linkedin",
  "addr:housenumber", "addr:street", "addr:place", "addr:postcode", "addr:city", "addr:country", "addr:full",
];

function first(tags: Record<string, string>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = tags[key];
    if (value !== undefined && value.trim() !== "") return value;
  }
  return undefined;
}

/**
 * One OSM element → a place or the reason it is skipped. `type` and
 * `id` make the stable place ID (`osm:node:123`).
 */
export function osmElementToItem(type: "node" | "way", id: number, tags: Record<string, string>, lat: number, lng: number): ImportItem {
  const reason = osmSkipReason(tags);
  if (reason) return { kind: "skip", reason };
  const { keys } = businessKeysOf(tags);
  const name = cleanText(tags.name ?? tags.brand, BOUNDS.name)!;

  let website = cleanWebsite(first(tags, "website", "contact:website", "url"));
  const socials: Socials = {};
  for (const network of ["facebook", "instagram", "twitter", "linkedin"] as const) {
    const value = cleanSocial(network, first(tags, `contact:${network}`, network));
    if (value) socials[network] = value;
  }
  // A "website" that is a Facebook or Instagram page is a social profile, not a site.
  if (website) {
    const network = socialNetworkOf(website);
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
  const categories = cleanCategories(osmCategoryLabels(tags, keys));
  return {
    kind: "place",
    place: {
      placeId: `osm:${type}:${id}`,
      name,
      address: formatAddress({ street, housenumber, postcode, city, country, full: cleanText(tags["addr:full"], 300), lat, lng }),
      street,
      housenumber,
      postcode,
      city,
      country,
      lat,
      lng,
      website,
      phone: cleanPhone(first(tags, "phone", "contact:phone", "contact:mobile", "mobile")),
      email: cleanEmail(first(tags, "email", "contact:email")),
      socials: socialsOrNull(socials),
      rating: null,
      categories,
      cuisine: cleanText(tags.cuisine?.replace(/;/g, "; ").replace(/_/g, " ")),
      brand: cleanText(tags.brand),
      description: cleanText(tags.description, BOUNDS.description),
      openingHours: cleanText(tags.opening_hours, BOUNDS.openingHours),
      provenance: null,
    },
  };
}
