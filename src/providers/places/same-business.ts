import { distanceKm } from "../../core/geo.js";
import { searchTokens } from "../../core/search-tokens.js";

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

interface Identity {
  name: string;
  address: string | null;
  phone: string | null;
  host: string | null;
  lat: number;
  lng: number;
}

const words = (text: string | null | undefined) => searchTokens(text).join(" ");

function hostOf(website: string | null): string | null {
  if (!website) return null;
  try {
    return new URL(website).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return null;
  }
}

export function identityOf(record: BusinessRecord): Identity {
  const street = words(record.street).replace(/(?<=\S)\s?(str|strasse)$/, "strasse");
  const number = words(record.housenumber);
  const digits = record.phone?.replace(/\D/g, "").replace(/^00/, "") ?? "";
  return {
    name: words(record.name),
    address: street && number ? `${street} ${number}` : null,
    phone: digits.length >= 5 ? digits.slice(-9) : null,
    host: hostOf(record.website),
    lat: record.lat,
    lng: record.lng,
  };
}

/** Both known and different. */
const conflict = (a: string | null, b: string | null) => a !== null && b !== null && a !== b;

export function sameBusiness(a: Identity, b: Identity): boolean {
  if (a.name !== b.name || a.name === "") return false;
  if (conflict(a.phone, b.phone) || conflict(a.host, b.host)) return false;
  if (a.address !== null && a.address === b.address) return true;
  return distanceKm(a, b) <= SAME_SPOT_KM && !conflict(a.address, b.address);
}
