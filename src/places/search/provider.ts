import type { LatLng } from "../../core/geo.js";
import type { Lead, SearchSort } from "../../core/schemas/lead.js";

/** The orders a search can return leads in (`relevance` unless asked): the API's `sort` (`SearchSort`). */
export type LeadSort = SearchSort;

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
  /** Which sources to read (only the combining provider, `place-sources.ts`, looks at it). */
  sources?: readonly string[];
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
   * What the user should know about this page: a source that failed while another
   * answered, a request budget that ran out, an empty index (the result's `warnings`).
   */
  warnings?: string[];
  /**
   * The local index holds no place at all (its warning says so and how to import some): the
   * lead search then adds no "nothing imported near here" of its own.
   */
  indexEmpty?: boolean;
  /** Requests this page sent to outside services, by source (Google's are billed per request). */
  requests?: Record<string, number>;
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
 * Where leads come from (docs/api.md, "Sources"): the local places index (`local.ts`),
 * Google Places (`google-places.ts`, a circle tiled into rectangles past the 60-result
 * cap) and Overpass (`overpass.ts`, one query for the whole circle); `place-sources.ts`
 * puts the configured ones behind this one interface. A provider that answers with a whole
 * list keeps it and cuts pages by offset (`list-pages.ts`); pages may be emptied by the
 * haversine filter and still carry the next cursor. An outside service's failure is thrown
 * as a `ServiceError` (`../../providers/service-http.ts`): a warning while another source answers, else
 * `provider_error` with a refund.
 *
 * Every call honours `signal`: when the client goes away, the work stops.
 */
export interface PlaceSearchProvider {
  /** Short name for logs and docs ("local", "google", "overpass"). */
  readonly name: string;
  search(request: PlaceSearchRequest): Promise<PlaceSearchPage>;
  /** The point of a provider place ID, or undefined when the provider does not know it. */
  resolvePlaceId(placeId: string, signal: AbortSignal): Promise<ResolvedPlace | undefined>;
  /**
   * Load now what the first search would otherwise load (the local provider's category
   * vocabulary: seconds to build on a fresh install), so that a server pays it before it
   * listens instead of inside a request.
   */
  prepare?(): void;
}

/** Pages hold at most 20 leads (docs/api.md, "Pages"). */
export const PAGE_SIZE = 20;
