import type { LatLng } from "../../core/geo.js";
import type { Lead } from "../../core/schemas/lead.js";

/** The orders a search can return leads in (`relevance` unless asked). */
export const LEAD_SORTS = ["relevance", "distance", "name"] as const;
export type LeadSort = (typeof LEAD_SORTS)[number];

/** One page request to a place search provider. */
export interface PlaceSearchRequest {
  center: LatLng;
  radiusKm: number;
  /** The user's keywords as typed (each provider turns them into its own query). */
  keywords: string;
  /** The provider's own cursor from the previous page; null for the first page. */
  cursor: string | null;
  /** The order of the leads across all pages (default relevance). */
  sort?: LeadSort;
  signal: AbortSignal;
}

export interface PlaceSearchPage {
  /**
   * Leads of this page (at most 20), in the provider's ranking. They may still include
   * places outside the circle: the lead search applies the strict haversine filter and
   * the Lead bounds itself, so a provider that can only restrict to a rectangle is fine.
   */
  leads: Lead[];
  /** Opaque cursor for the next page, or null when there is none. */
  nextCursor: string | null;
  /**
   * The keywords the leads were found for when the provider corrected a typo because the
   * keywords as typed found nothing; null or absent when they were used as typed.
   */
  didYouMean?: string | null;
}

/** A place ID resolved to the point a search is centred on. */
export interface ResolvedPlace {
  center: LatLng;
  name: string;
}

/**
 * Where leads come from. The local places index implements it (`local.ts`); the shape is
 * chosen so that remote sources fit without changing the search (docs/api.md, "Providers"):
 *
 * - Google Places Text Search: `keywords` → `textQuery`; the circle's bounding box →
 *   `locationRestriction.rectangle` (Text Search takes no circle); `pageSize: 20`; the
 *   cursor is Google's `nextPageToken` as is (every other parameter is re-sent identical,
 *   which the lead search guarantees by binding its page token to the parameters). Google
 *   stops at 60 results, so that provider returns `nextCursor: null` after page 3 (or
 *   tiles a large circle and encodes tile index + token in its cursor). Pages may be
 *   emptied by the haversine filter and still carry the next page's token. `resolvePlaceId` is
 *   `GET /v1/places/{id}` with the mask `location,displayName`. Its HTTP errors
 *   (`INVALID_ARGUMENT`, 429, 5xx) are thrown and become `provider_error` with a refund.
 * - Overpass: one `around:R,LAT,LON` query per keyword over `nwr[name][shop|amenity|…]`
 *   returns everything at once; the provider ranks and keeps the result for a few
 *   minutes, and its cursor is simply the offset into that list. 429 (no free slot) and
 *   timeouts are thrown as provider failures.
 *
 * Every call honours `signal`: when the client goes away, the work stops.
 */
export interface PlaceSearchProvider {
  /** Short name for logs and docs ("local", "google", "overpass"). */
  readonly name: string;
  search(request: PlaceSearchRequest): Promise<PlaceSearchPage>;
  /** The point of a provider place ID, or undefined when the provider does not know it. */
  resolvePlaceId(placeId: string, signal: AbortSignal): Promise<ResolvedPlace | undefined>;
}

/** Pages hold at most 20 leads (docs/api.md, "Pages"). */
export const PAGE_SIZE = 20;
