import { parse as parseDomain } from "tldts";
import { checkEmailSyntax } from "./email-syntax.js";
import { Lead, type Socials } from "./schemas/lead.js";
import { capLength, collapseWhitespace } from "./text.js";

/**
 * The one set of rules that turns a business's values from any source into Lead values
 * within their bounds (docs/api.md, "Lead values"): the importers use it when they store a
 * place, the places provider when it turns a stored row into a lead (`toLead`), and any
 * later provider for what it receives. One rule per field. Each function returns null for
 * a value that cannot be made valid: a lead with no phone is better than a lead with a
 * broken one.
 */

export const BOUNDS = {
  placeId: 512,
  name: 300,
  address: 500,
  website: 2048,
  phone: 64,
  email: 254,
  social: 2048,
  categories: 30,
  category: 80,
  description: 1200,
  openingHours: 500,
  short: 200,
} as const;

/** OSM packs several values into one tag with `;`: the first is the main one. */
function firstOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const first = value.split(";")[0];
  if (first === undefined) return null;
  const cleaned = collapseWhitespace(first);
  return cleaned === "" ? null : cleaned;
}

/** A free-text value: whitespace collapsed, capped (never mid-character), null when empty or not text. */
export function cleanText(value: unknown, max: number = BOUNDS.short): string | null {
  if (typeof value !== "string") return null;
  const cleaned = collapseWhitespace(value);
  return cleaned === "" ? null : capLength(cleaned, max);
}

/**
 * A website URL: http(s) only (a bare `example.com` gets `https://`), a host with a
 * real public suffix (drops "n/a", "facebook" and the like) or an IP address (rare, but a
 * real site; whether it may be fetched is the fetcher's address policy's call), no
 * credentials, ≤ 2048.
 */
export function cleanWebsite(value: unknown): string | null {
  return websiteWithDomain(value)?.href ?? null;
}

/**
 * `cleanWebsite`, with the registrable domain it was checked against (null for an IP
 * address): what `socialNetworkOfDomain` needs, so that an importer asking "is this
 * website a social profile?" parses the URL once instead of twice.
 */
export function websiteWithDomain(value: unknown): { href: string; domain: string | null } | null {
  let raw = firstOf(value);
  if (!raw) return null;
  raw = raw.replace(/\s+/g, "");
  if (!/^[a-z][a-z0-9+.-]*:/i.test(raw)) raw = "https://" + raw.replace(/^\/+/, "");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password) return null;
  const host = parseDomain(url.hostname);
  if (!host.isIp && (!host.domain || !host.isIcann)) return null;
  const href = url.href;
  return href.length <= BOUNDS.website ? { href, domain: host.domain } : null;
}

/** The website's host, lower case, without a trailing dot or a leading `www.` (the Lead `domain` field). */
export function domainOf(website: string | null): string | null {
  if (!website) return null;
  try {
    const host = new URL(website).hostname.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
    return host !== "" && host.length <= 253 ? host : null;
  } catch {
    return null;
  }
}

/** A phone number as written (keeps `+41 …` formatting), at least 5 digits, ≤ 64 characters. */
export function cleanPhone(value: unknown): string | null {
  const raw = firstOf(value);
  if (!raw) return null;
  if (!/^[+\d(][\d\s().\-/+]*(?:\s*(?:ext\.?|x|#)\s*\d+)?$/i.test(raw)) return null;
  const digits = raw.replace(/\D/g, "").length;
  if (digits < 5 || digits > 20) return null;
  return raw.length <= BOUNDS.phone ? raw : null;
}

/**
 * An email address: `mailto:` stripped, the address grammar (`checkEmailSyntax`: RFC 5321
 * with RFC 6531's internationalised addresses, the one the verification checks too), domain
 * lower-cased (never the local part), a registrable domain under a real TLD. Every email a
 * lead holds went through it: the importers', the live sources' and the websites' (the
 * extractor's `cleanEmail` adds what only a web page needs).
 */
export function cleanEmail(value: unknown): string | null {
  let raw = firstOf(value);
  if (!raw) return null;
  raw = raw.replace(/^mailto:/i, "").split("?")[0] ?? "";
  if (raw.length > BOUNDS.email || !checkEmailSyntax(raw).ok) return null;
  const at = raw.lastIndexOf("@");
  const domain = raw.slice(at + 1).toLowerCase();
  const parsed = parseDomain(domain);
  if (!parsed.domain || !parsed.isIcann || parsed.isIp) return null;
  return raw.slice(0, at) + "@" + domain;
}

const SOCIAL_HOSTS: Record<keyof Socials, { hosts: string[]; base: string }> = {
  facebook: { hosts: ["facebook.com", "fb.com"], base: "https://www.facebook.com/" },
  instagram: { hosts: ["instagram.com"], base: "https://www.instagram.com/" },
  twitter: { hosts: ["twitter.com", "x.com"], base: "https://twitter.com/" },
  linkedin: { hosts: ["linkedin.com"], base: "https://www.linkedin.com/" },
};

/** Which network a profile URL belongs to, by its registrable domain. */
export function socialNetworkOf(url: string): keyof Socials | null {
  try {
    return socialNetworkOfDomain(parseDomain(new URL(url).hostname).domain);
  } catch {
    return null; // not a URL
  }
}

/** Which network a registrable domain ("facebook.com") belongs to. */
export function socialNetworkOfDomain(domain: string | null): keyof Socials | null {
  return (domain && NETWORK_OF_DOMAIN.get(domain)) || null;
}

const NETWORK_OF_DOMAIN: ReadonlyMap<string, keyof Socials> = new Map(
  (Object.entries(SOCIAL_HOSTS) as Array<[keyof Socials, { hosts: string[] }]>).flatMap(([network, { hosts }]) => hosts.map((host) => [host, network] as const)),
);

/**
 * A profile link for `network`: a full URL on that network's domain, or a bare handle
 * ("@acme", "acme") made into one. Share buttons and other networks' URLs are dropped.
 */
export function cleanSocial(network: keyof Socials, value: unknown): string | null {
  const raw = firstOf(value);
  if (!raw) return null;
  const { base } = SOCIAL_HOSTS[network];
  let url: string;
  if (/^https?:\/\//i.test(raw) || /^(www\.)?[a-z0-9.-]+\.[a-z]{2,}\//i.test(raw)) {
    const withScheme = /^https?:\/\//i.test(raw) ? raw : "https://" + raw;
    if (socialNetworkOf(withScheme) !== network) return null;
    let parsed: URL;
    try {
      parsed = new URL(withScheme);
    } catch {
      return null;
    }
    if (/sharer|\/intent\/|\/share|\/plugins\//i.test(parsed.pathname)) return null;
    parsed.protocol = "https:";
    parsed.hash = "";
    // Tracking parameters are noise, but facebook's profile.php?id=… needs its query.
    if (!/profile\.php$/.test(parsed.pathname)) parsed.search = "";
    url = parsed.href;
  } else {
    const handle = raw.replace(/^@/, "");
    if (network === "linkedin" || !/^[A-Za-z0-9_.-]{1,100}$/.test(handle)) return null;
    url = base + handle;
  }
  return url.length <= BOUNDS.social ? url : null;
}

/** Socials with at least one member, else null (the Lead shape). */
export function socialsOrNull(socials: Socials): Socials | null {
  // A loop, not entries/filter/fromEntries: called for every place an import reads.
  let kept: Socials | null = null;
  for (const [network, url] of Object.entries(socials)) {
    if (typeof url === "string" && url !== "") (kept ??= {})[network as keyof Socials] = url;
  }
  return kept;
}

/** Socials of any source (an object keyed by network) cleaned network by network; null when none is left. */
export function cleanSocials(value: unknown): Socials | null {
  if (!value || typeof value !== "object") return null;
  const socials: Socials = {};
  for (const network of Object.keys(SOCIAL_HOSTS) as Array<keyof Socials>) {
    const url = cleanSocial(network, (value as Record<string, unknown>)[network]);
    if (url) socials[network] = url;
  }
  return socialsOrNull(socials);
}

/** Labels deduplicated (case-insensitively), each 1..80 characters, at most 30. */
export function cleanCategories(labels: Iterable<unknown>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const label of labels) {
    const cleaned = cleanText(label, BOUNDS.category);
    if (!cleaned) continue;
    const key = cleaned.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(cleaned);
    if (out.length === BOUNDS.categories) break;
  }
  return out;
}

/** ISO 3166-1 alpha-2 when the value is one (any case); anything else derives nothing. */
export function cleanCountry(value: string | null | undefined): string | null {
  const raw = value?.trim();
  return raw && /^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : null;
}

/** A rating 0..5, else null. */
export function cleanRating(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 && n <= 5 ? n : null;
}

/** Coordinates that are numbers in range (0,0 "null island" counts as missing: it is where broken geocoding puts things). */
export function validCoordinates(lat: unknown, lng: unknown): boolean {
  return (
    typeof lat === "number" && typeof lng === "number" && Number.isFinite(lat) && Number.isFinite(lng) &&
    lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180 && !(lat === 0 && lng === 0)
  );
}

/**
 * The one-line address, never empty: "Street 12, 9490 Vaduz", else whatever parts exist
 * (city, postcode, country), else the coordinates, so that a lead always says where it is.
 */
export function formatAddress(parts: AddressParts & { lat: number; lng: number }): string {
  return addressLine(parts) ?? coordinatesAddress(parts.lat, parts.lng);
}

export interface AddressParts {
  street: string | null;
  housenumber: string | null;
  postcode: string | null;
  city: string | null;
  country: string | null;
  full?: string | null;
}

/**
 * `formatAddress` of the parts alone, or null when they make none: an importer that learns
 * a place's point later (an OSM way, at its nodes' centroid) keeps this and adds the
 * coordinates then (`coordinatesAddress`).
 */
export function addressLine(parts: AddressParts): string | null {
  // String joins rather than arrays: an import makes this line for millions of places.
  const streetLine = parts.full ?? joinPresent(parts.street, parts.housenumber, " ");
  let address = joinPresent(streetLine, joinPresent(parts.postcode, parts.city, " "), ", ");
  // The country only where no city line says where it is.
  if (!parts.city && !parts.postcode) address = joinPresent(address, parts.country, ", ");
  return address !== "" ? capLength(address, BOUNDS.address) : null;
}

/** `[a, b].filter(Boolean).join(separator)`. */
function joinPresent(a: string | null | undefined, b: string | null | undefined, separator: string): string {
  if (!a) return b || "";
  return b ? a + separator + b : a;
}

/** The address of a place that has nothing but its point. */
export function coordinatesAddress(lat: number, lng: number): string {
  return `${lat.toFixed(5)}, ${lng.toFixed(5)}`;
}

/** Raw fields of a business from any source, before cleaning. */
export interface RawLead {
  placeId: unknown;
  name: unknown;
  address: unknown;
  lat: unknown;
  lng: unknown;
  website?: unknown;
  phone?: unknown;
  email?: unknown;
  socials?: unknown;
  rating?: unknown;
  categories?: unknown;
  /** Used for the address when the source has none. */
  fallbackAddress?: unknown;
}

/**
 * A lead within every bound, or undefined when a required field (place ID, name, address,
 * point) cannot be made valid: such a lead is dropped rather than emitted.
 */
export function toLead(raw: RawLead): Lead | undefined {
  const placeId = typeof raw.placeId === "string" && raw.placeId.length >= 1 && raw.placeId.length <= BOUNDS.placeId ? raw.placeId : null;
  const name = cleanText(raw.name, BOUNDS.name);
  const address = cleanText(raw.address, BOUNDS.address) ?? cleanText(raw.fallbackAddress, BOUNDS.address);
  if (!placeId || !name || !address || !validCoordinates(raw.lat, raw.lng)) return undefined;
  const website = cleanWebsite(raw.website);
  const lead: Lead = {
    placeId,
    name,
    address,
    lat: raw.lat as number,
    lng: raw.lng as number,
    website,
    domain: domainOf(website),
    phone: cleanPhone(raw.phone),
    rating: cleanRating(raw.rating),
    categories: cleanCategories(Array.isArray(raw.categories) ? raw.categories : []),
    email: cleanEmail(raw.email),
    socials: cleanSocials(raw.socials),
  };
  boundedLeads.add(lead);
  return lead;
}

/**
 * The leads `toLead` made, and the copies `withSources` made of them: within every bound
 * of the Lead schema by construction (test/core/lead-values-bounds.test.ts checks that on
 * generated input), so the lead search does not check each one against the schema again
 * (a zod parse of 20 leads was ~7 % of a search's CPU over HTTP). A lead is never changed
 * once made (enrichment works on copies); a WeakSet keeps nothing alive.
 */
const boundedLeads = new WeakSet<Lead>();

/** Whether `lead` is known to be within the Lead schema's bounds without checking it: `toLead` made it. */
export function isBoundedLead(lead: Lead): boolean {
  return boundedLeads.has(lead);
}

/** A copy of `lead` naming the sources it was found in; still known to be in bounds when `lead` was and the sources are. */
export function withSources(lead: Lead, sources: string[]): Lead {
  const copy = { ...lead, sources };
  if (boundedLeads.has(lead) && Lead.shape.sources.safeParse(sources).success) boundedLeads.add(copy);
  return copy;
}
