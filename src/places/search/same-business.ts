import { distanceKm } from "../../core/geo.js";
import { domainOf } from "../../core/lead-values.js";
import { searchTokens } from "../store/search-tokens.js";

/**
 * When two records in one result are the same business, so the search shows it once: the
 * one rule, for the local index's records (`local.ts`: a node and a building outline of one
 * shop) and for the records of several sources merged into one list (`sources/lead-merge.ts`:
 * OSM's and Google's record of one café, or two Google tiles).
 *
 * 1. The same place ID: one business.
 * 2. A phone or a website host that both know and that differ: two businesses (two salons
 *    of one name on two floors of a building, each with its own phone).
 * 3. Across sources only: the same phone or website host within 1 km: one business, whatever
 *    the names ("Löwen" and "Gasthaus zum Löwen").
 * 4. Otherwise the same folded name (`businessNameKey`) is needed, and then the same street
 *    address, or, where either address is unknown, at most the scope's `spotKm` apart.
 *    Branches of a chain 30 m apart, each with its own address, stay two leads.
 *
 * What differs between the two callers is only what the records can tell, made explicit in
 * `SameBusinessScope` (never by which function is called): one source names and places a
 * business one way, two sources do not. Example of a pair the scopes must judge apart: a hotel
 * "Adler" and its restaurant "Stube im Adler" in the local index, 20 m apart with one phone
 * number, are two leads (one source gave them two names, so they are two places); an OSM
 * "Löwen" and a Google "Gasthaus zum Löwen" 20 m apart with one phone are one business (two
 * sources name one place their own way). Likewise OSM's node and building of one shop agree
 * within 25 m, while two sources' geocoding of it may be 50 m apart.
 */

export interface BusinessRecord {
  /** Absent for records that are distinct places by construction (rows of the local index). */
  placeId?: string;
  name: string;
  /** Structured address: only the local index has it (a Lead's one-line address is each source's own writing). */
  street?: string | null;
  housenumber?: string | null;
  phone: string | null;
  website: string | null;
  lat: number;
  lng: number;
}

export interface SameBusinessScope {
  /** How far apart two records of one name may stand and be one business when their addresses do not settle it. */
  spotKm: number;
  /** How far apart two records sharing a phone or a website host are one business whatever their names; null: never on that alone. */
  sharedContactKm: number | null;
}

/** Records of one source (the local index): a node and the centroid of its building. */
export const ONE_SOURCE: SameBusinessScope = { spotKm: 0.025, sharedContactKm: null };

/**
 * Records of several sources (or several tiles of one): each geocodes a business its own way
 * (50 m) and names it its own way (a shared contact says more than the name). Not further than
 * 1 km, because branches of a chain share a website (every McDonald's has mcdonalds.com).
 */
export const SEVERAL_SOURCES: SameBusinessScope = { spotKm: 0.05, sharedContactKm: 1 };

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

/** A phone's digits without leading zeros (the trunk 0 of a national form, the 00 of an international one). */
function phoneDigits(phone: string): string | null {
  const digits = phone.replace(/\D/g, "").replace(/^0+/, "");
  return digits.length >= 5 ? digits : null;
}

type Agreement = "same" | "different" | "unknown";

/** Two facts compared: "unknown" unless both records have it. */
function agreement(a: string | null, b: string | null): Agreement {
  return a === null || b === null ? "unknown" : a === b ? "same" : "different";
}

/** One number when the shorter digits end the longer: "+423 232 11 11" = "232 11 11", "+49 89 123456" = "089 123456". */
function phoneAgreement(a: string | null, b: string | null): Agreement {
  const x = a ? phoneDigits(a) : null;
  const y = x && b ? phoneDigits(b) : null;
  if (x === null || y === null) return "unknown";
  return x.length >= y.length ? (x.endsWith(y) ? "same" : "different") : y.endsWith(x) ? "same" : "different";
}

/** Whether two records are one business under `scope` (each fact computed only when both have it). */
export function sameBusiness(a: BusinessRecord, b: BusinessRecord, scope: SameBusinessScope): boolean {
  if (a.placeId !== undefined && a.placeId === b.placeId) return true;
  const phones = phoneAgreement(a.phone, b.phone);
  if (phones === "different") return false;
  const hosts = a.website && b.website ? agreement(domainOf(a.website), domainOf(b.website)) : "unknown";
  if (hosts === "different") return false;
  const d = distanceKm(a, b);
  if (scope.sharedContactKm !== null && (phones === "same" || hosts === "same") && d <= scope.sharedContactKm) return true;
  if (businessNameKey(a.name) !== businessNameKey(b.name)) return false;
  const addressA = addressOf(a);
  const addresses = addressA === null ? "unknown" : agreement(addressA, addressOf(b));
  if (addresses !== "unknown") return addresses === "same";
  return d <= scope.spotKm;
}
