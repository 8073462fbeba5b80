import type { Lead, Socials } from "./schemas/lead.js";

/**
 * service-api.md 2.3 says producers trim, cap and drop invalid values rather than emit
 * them. These helpers do that for any source (local index, future remote providers).
 */

/** Trimmed text, whitespace collapsed, cut to `max` characters (never mid-surrogate); null when empty. */
export function cappedText(value: unknown, max: number): string | null {
  if (typeof value !== "string") return null;
  const text = value.replace(/\s+/g, " ").trim();
  if (!text) return null;
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.trimEnd();
}

/** An absolute http(s) URL of at most `max` characters, else null (a cut URL would be wrong, so it is dropped). */
export function httpUrl(value: unknown, max = 2048): string | null {
  if (typeof value !== "string") return null;
  let text = value.trim();
  if (!text) return null;
  // OSM often has "www.example.li" without a scheme.
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text) && /^[\w-]+(\.[\w-]+)+(\/|$)/.test(text)) text = `http://${text}`;
  if (text.length > max) return null;
  try {
    const url = new URL(text);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (!url.hostname) return null;
    return text;
  } catch {
    return null;
  }
}

/** The website's host without `www.`, lower case (2.3 `domain`). */
export function domainOf(website: string | null): string | null {
  if (!website) return null;
  try {
    const host = new URL(website).hostname.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
    return host && host.length <= 253 ? host : null;
  } catch {
    return null;
  }
}

const EMAIL = /^[^\s@<>(),;:"[\]]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** A plausible email of at most 254 characters (a `mailto:` prefix is stripped), else null. */
export function emailAddress(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim().replace(/^mailto:/i, "");
  if (text.length > 254 || !EMAIL.test(text)) return null;
  const at = text.lastIndexOf("@");
  // Lower-case the domain only: the local part may be case-sensitive.
  return text.slice(0, at) + "@" + text.slice(at + 1).toLowerCase();
}

export function phoneNumber(value: unknown): string | null {
  const text = cappedText(value, 1000);
  if (!text || text.length > 64 || !/\d/.test(text)) return null;
  return text;
}

export function ratingValue(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 5 ? value : null;
}

/** At most 30 labels, each 1..80 characters, without duplicates. */
export function categoryList(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  const out: string[] = [];
  for (const v of values) {
    const label = cappedText(v, 80);
    if (label && !out.includes(label)) out.push(label);
    if (out.length === 30) break;
  }
  return out;
}

const SOCIAL_KEYS = ["linkedin", "facebook", "twitter", "instagram"] as const;

/** The four known networks, each an http(s) URL of at most 2048 characters; null when none is left. */
export function socialLinks(value: unknown): Socials | null {
  if (!value || typeof value !== "object") return null;
  const out: Socials = {};
  for (const key of SOCIAL_KEYS) {
    const url = httpUrl((value as Record<string, unknown>)[key]);
    if (url) out[key] = url;
  }
  return Object.keys(out).length ? out : null;
}

/** Coordinates in range, else undefined (a lead without a valid point is dropped). */
export function validPoint(lat: unknown, lng: unknown): { lat: number; lng: number } | undefined {
  if (typeof lat !== "number" || typeof lng !== "number" || !Number.isFinite(lat) || !Number.isFinite(lng)) return undefined;
  if (lat < -90 || lat > 90 || lng < -180 || lng > 180) return undefined;
  return { lat, lng };
}

/** Raw fields of a business from any source. */
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

/** A lead within every 2.3 bound, or undefined when a required field cannot be made valid. */
export function toLead(raw: RawLead): Lead | undefined {
  const placeId = typeof raw.placeId === "string" && raw.placeId.length >= 1 && raw.placeId.length <= 512 ? raw.placeId : null;
  const name = cappedText(raw.name, 300);
  const address = cappedText(raw.address, 500) ?? cappedText(raw.fallbackAddress, 500);
  const point = validPoint(raw.lat, raw.lng);
  if (!placeId || !name || !address || !point) return undefined;
  const website = httpUrl(raw.website);
  return {
    placeId,
    name,
    address,
    lat: point.lat,
    lng: point.lng,
    website,
    domain: domainOf(website),
    phone: phoneNumber(raw.phone),
    rating: ratingValue(raw.rating),
    categories: categoryList(raw.categories),
    email: emailAddress(raw.email),
    socials: socialLinks(raw.socials),
  };
}
