import { distanceKm } from "../../core/geo.js";
import { searchTokens } from "../store/search-tokens.js";

/**
 * When two records in one result are the same business (two sources, or a node and a
 * building outline of one shop), so the search shows it once. Same name (folded), and
 * either the same street address, or at most SAME_SPOT_KM apart with no different
 * address; in both cases nothing else that says otherwise (a different phone or website).
 * Branches of a chain 30 m apart, each with its own address, stay two leads; so do two
 * salons of one name on two floors of a building, each with its own phone.
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
