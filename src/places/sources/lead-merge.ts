import type { Lead } from "../../core/schemas/lead.js";
import { sameBusiness, SEVERAL_SOURCES } from "../search/same-business.js";

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
 * (`sameBusiness` with the SEVERAL_SOURCES scope) or kept as a new lead.
 */
export function mergeRankedLists(lists: ReadonlyArray<readonly Lead[]>): Lead[] {
  const merged: Lead[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < longest; rank++) {
    for (const list of lists) {
      const lead = list[rank];
      if (!lead) continue;
      const index = merged.findIndex((m) => sameBusiness(m, lead, SEVERAL_SOURCES));
      if (index === -1) merged.push(lead);
      else merged[index] = mergeLeads(merged[index]!, lead);
    }
  }
  return merged;
}
