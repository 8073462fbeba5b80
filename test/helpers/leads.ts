import type { Lead } from "../../src/core/schemas/lead.js";

/** A lead as the search would hand it to enrichment: place data only. */
export function placeLead(id: string, website: string | null, extra: Partial<Lead> = {}): Lead {
  return {
    placeId: `place-${id}`,
    name: `Business ${id}`,
    address: `${id} Main Street`,
    lat: 47.14,
    lng: 9.52,
    website,
    domain: website ? new URL(website).hostname : null,
    phone: null,
    rating: null,
    categories: ["shop"],
    email: null,
    socials: null,
    ...extra,
  };
}
