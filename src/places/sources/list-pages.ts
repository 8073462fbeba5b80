import { distanceKm, type LatLng } from "../../core/geo.js";
import type { Lead } from "../../core/schemas/lead.js";
import { PAGE_SIZE, type LeadSort } from "../search/provider.js";

/**
 * Sources that answer a search with one whole list (Google after tiling, Overpass, the
 * merge of several sources) keep it for a while and cut pages from it; the cursor is
 * `<letter>:<offset>`.
 */
export class ListCache<T> {
  private readonly lists = new Map<string, { value: T; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxLists = 64,
  ) {}

  get(key: string): T | undefined {
    const entry = this.lists.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.lists.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    this.lists.delete(key);
    this.lists.set(key, { value, at: this.now() });
    while (this.lists.size > this.maxLists) this.lists.delete(this.lists.keys().next().value!);
  }
}

/** The offset a cursor of this letter carries (0 for the first page); anything else is a bug, not user input (page tokens are signed). */
export function cursorOffset(cursor: string | null, letter: string): number {
  if (cursor === null) return 0;
  const m = /^([a-z]):(\d{1,7})$/.exec(cursor);
  if (!m || m[1] !== letter) throw new Error(`malformed cursor ${JSON.stringify(cursor)}`);
  return Number(m[2]);
}

/**
 * A whole list in the search's order: `relevance` keeps the source's own ranking (or the
 * merge's), `distance` and `name` reorder it (stable, so equal ones keep that ranking).
 */
export function orderLeads(leads: readonly Lead[], sort: LeadSort | undefined, center: LatLng): readonly Lead[] {
  if (!sort || sort === "relevance") return leads;
  if (sort === "distance") {
    return leads
      .map((lead) => ({ lead, d: distanceKm(center, lead) }))
      .sort((a, b) => a.d - b.d)
      .map((x) => x.lead);
  }
  return [...leads].sort((a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base" }));
}

/** One page of a whole list, and the cursor of the next. */
export function pageOfList(leads: readonly Lead[], offset: number, letter: string): { leads: Lead[]; nextCursor: string | null } {
  const page = leads.slice(offset, offset + PAGE_SIZE);
  const next = offset + page.length;
  return { leads: page, nextCursor: next < leads.length ? `${letter}:${next}` : null };
}
