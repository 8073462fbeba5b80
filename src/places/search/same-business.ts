import { distanceKm } from "../../core/geo.js";
import type { Lead } from "../../core/schemas/lead.js";
import { searchTokens } from "../store/search-tokens.js";

/**
 * When two records in one result are the same business, so the search shows it once: the
 * one home of that rule, for the local index's records (`sameBusiness`: a node and a
 * building outline of one shop) and for records of several sources merged into one list
 * (`sameBusinessAcrossSources`, `sources/lead-merge.ts`). Both start from the same folded
 * name (`businessNameKey`) and place ID; what else counts differs only by what the records
 * can tell.
 *
 * One source: same name, and either the same street address, or at most SAME_SPOT_KM apart
 * with no different address; in both cases nothing else that says otherwise (a different
 * phone or website). Branches of a chain 30 m apart, each with its own address, stay two
 * leads; so do two salons of one name on two floors of a building, each with its own phone.
 */

/** Two points of one business: a node and the centroid of its building, two sources' geocoding. */
export const SAME_SPOT_KM = 0.025;

export interface BusinessRecord {
  name: string;
  street: string | null;
  housenumber: string | null;
  phone: string | null;
  website: string | null;
  lat: number;
  lng: number;
}

const words = (text: string | null | undefined) => searchTokens(text).join(" ");

/** The folded words of a name, one space between: the key records of one business share. */
export function businessNameKey(name: string): string {
  return words(name);
}

/** Street and number, folded ("Kaufingerstr. 9" = "Kaufingerstrasse 9"), or null when either is unknown. */
function addressOf(record: BusinessRecord): string | null {
  if (!record.street || !record.housenumber) return null;
  return `${words(record.street).replace(/(?<=\S)\s?(str|strasse)$/, "strasse")} ${words(record.housenumber)}`;
}

/** The last nine digits (an international and a national form of one number agree). */
function phoneOf(record: BusinessRecord): string | null {
  const digits = record.phone?.replace(/\D/g, "") ?? "";
  return digits.length >= 5 ? digits.slice(-9) : null;
}

/** A website's host without `www.` (stored websites are already valid http(s) URLs). */
function hostOf(record: BusinessRecord): string | null {
  const host = record.website ? /^https?:\/\/(?:[^@/?#]*@)?([^/:?#]+)/i.exec(record.website)?.[1] : undefined;
  return host ? host.toLowerCase().replace(/^www\./, "") : null;
}

/** Both known and different. */
const conflict = (a: string | null, b: string | null) => a !== null && b !== null && a !== b;

/** Whether two records with the same `businessNameKey` are one business (each fact computed only when both have it). */
export function sameBusiness(a: BusinessRecord, b: BusinessRecord): boolean {
  if (a.phone && b.phone && conflict(phoneOf(a), phoneOf(b))) return false;
  if (a.website && b.website && conflict(hostOf(a), hostOf(b))) return false;
  const addressA = addressOf(a);
  const addressB = addressA === null ? null : addressOf(b);
  if (addressA !== null && addressB !== null) return addressA === addressB;
  return distanceKm(a, b) <= SAME_SPOT_KM;
}

/** Across sources, same folded name this close: one business (each source geocodes it its own way). */
const SAME_NAME_ACROSS_SOURCES_KM = 0.05;
/**
 * Across sources, same website domain or international phone this close: one business. Not
 * further, because branches of a chain share both (every McDonald's has mcdonalds.com).
 */
const SAME_CONTACT_KM = 1;

/** The international phone's digits ("+377 93 15 00 00" → "37793150000"); a national number says too little across sources. */
function internationalPhone(phone: string | null): string | null {
  if (!phone || !phone.trim().startsWith("+")) return null;
  return phone.replace(/\D/g, "");
}

/**
 * Whether two leads of two sources (or two tiles of one) are one business (docs/api.md,
 * "Sources"): the same place ID; the same website domain or international phone within
 * 1 km; the same folded name within 50 m. Addresses are not compared: each source writes
 * them its own way.
 */
export function sameBusinessAcrossSources(a: Lead, b: Lead): boolean {
  if (a.placeId === b.placeId) return true;
  const d = distanceKm(a, b);
  if (d <= SAME_CONTACT_KM) {
    if (a.domain && a.domain === b.domain) return true;
    const pa = internationalPhone(a.phone);
    if (pa && pa === internationalPhone(b.phone)) return true;
  }
  return d <= SAME_NAME_ACROSS_SOURCES_KM && businessNameKey(a.name) === businessNameKey(b.name);
}
