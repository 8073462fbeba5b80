import { distanceKm } from "../../core/geo.js";
import type { Lead } from "../../core/schemas/lead.js";
import { businessNameKey } from "../search/same-business.js";

/** Same folded name this close: one business (docs/api.md, "Sources"). */
const SAME_NAME_KM = 0.05;
/**
 * Same website domain or international phone this close: one business. Not further,
 * because branches of a chain share both (every McDonald's has mcdonalds.com).
 */
const SAME_CONTACT_KM = 1;

/** The international phone's digits ("+377 93 15 00 00" → "37793150000"); a national number says too little. */
function phoneKey(phone: string | null): string | null {
  if (!phone || !phone.trim().startsWith("+")) return null;
  return phone.replace(/\D/g, "");
}

/** Whether two records (of two sources, or two tiles) are one business. */
function sameBusiness(a: Lead, b: Lead): boolean {
  if (a.placeId === b.placeId) return true;
  const d = distanceKm(a, b);
  if (d <= SAME_CONTACT_KM) {
    if (a.domain && a.domain === b.domain) return true;
    const pa = phoneKey(a.phone);
    if (pa && pa === phoneKey(b.phone)) return true;
  }
  return d <= SAME_NAME_KM && businessNameKey(a.name) === businessNameKey(b.name);
}

/** How much a record says: the fields a lead is worth having for. */
function richness(lead: Lead): number {
  return [lead.website, lead.phone, lead.email, lead.rating, lead.socials].filter((v) => v !== null).length + (lead.categories.length > 0 ? 1 : 0);
}

/**
 * Two records of one business as one: the richer record wins field by field (a field the
 * richer one lacks comes from the other), categories and sources are joined, and the
 * first record's place ID stays (the one its page ranked first).
 */
export function mergeLeads(first: Lead, other: Lead): Lead {
  const [rich, poor] = richness(other) > richness(first) ? [other, first] : [first, other];
  const website = rich.website ?? poor.website;
  return {
    ...poor,
    ...rich,
    placeId: first.placeId,
    website,
    domain: website === rich.website ? rich.domain : poor.domain,
    phone: rich.phone ?? poor.phone,
    email: rich.email ?? poor.email,
    rating: rich.rating ?? poor.rating,
    socials: rich.socials || poor.socials ? { ...poor.socials, ...rich.socials } : null,
    categories: [...new Set([...rich.categories, ...poor.categories])].slice(0, 30),
    sources: [...new Set([...(first.sources ?? []), ...(other.sources ?? [])])],
  };
}

/**
 * One list from several sources' ranked lists: taken in turns (the first of each source,
 * then the second of each…), each record merged into an earlier one of the same business
 * (same place ID; same website domain or international phone within 1 km; same folded
 * name within 50 m) or kept as a new lead.
 */
export function mergeRankedLists(lists: ReadonlyArray<readonly Lead[]>): Lead[] {
  const merged: Lead[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < longest; rank++) {
    for (const list of lists) {
      const lead = list[rank];
      if (!lead) continue;
      const index = merged.findIndex((m) => sameBusiness(m, lead));
      if (index === -1) merged.push(lead);
      else merged[index] = mergeLeads(merged[index]!, lead);
    }
  }
  return merged;
}
