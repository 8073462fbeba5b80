import { distanceKm, type BoundingBox } from "../../core/geo.js";
import { toLead } from "../../core/lead-values.js";
import type { Lead } from "../../core/schemas/lead.js";
import { retryAfterSeconds } from "../../core/retry-after.js";
import { ServiceError, serviceFetch } from "../../providers/service-http.js";
import { tileCircle, type TileAnswer } from "./circle-tiling.js";
import { cursorOffset, ListCache, orderLeads, pageOfList } from "./list-pages.js";
import { PAGE_SIZE, type PlaceSearchPage, type PlaceSearchProvider, type PlaceSearchRequest, type ResolvedPlace } from "../search/provider.js";

/**
 * The fields a Lead needs, and nothing more: the most expensive field in the mask sets the
 * SKU of the whole request. `websiteUri`, the phone numbers and `rating` put Text Search
 * in its Enterprise SKU (docs/api.md, "Google Places": its price per 1,000 requests).
 * `nextPageToken` must be in the mask or Google does not return it.
 */
export const TEXT_SEARCH_FIELD_MASK = [
  "places.id",
  "places.displayName",
  "places.formattedAddress",
  "places.location",
  "places.websiteUri",
  "places.nationalPhoneNumber",
  "places.internationalPhoneNumber",
  "places.rating",
  "places.types",
  "nextPageToken",
].join(",");
/** Place Details for `locationPlaceId`: Essentials-SKU fields only. */
export const DETAILS_FIELD_MASK = "location,formattedAddress";
/** Google stops a query after this many results, whatever the pages. */
export const GOOGLE_RESULT_CAP = 60;
const PAGES_PER_QUERY = GOOGLE_RESULT_CAP / PAGE_SIZE;
/** Types every business has, which say nothing about what it is. */
const GENERIC_TYPES = new Set(["point_of_interest", "establishment", "premise", "food", "store", "health", "finance", "political"]);
const LIST_TTL_MS = 15 * 60 * 1000;

export interface GooglePlacesOptions {
  apiKey: string;
  /** `https://places.googleapis.com` (tests: a stub on 127.0.0.1). */
  baseUrl: string;
  timeoutMs: number;
  /** Requests one search may spend on tiles (each costs; docs/self-hosting.md). */
  maxRequests: number;
  /** Splits of a tile that hit the 60-result cap. */
  maxDepth?: number;
  now?: () => number;
}

/** A place as Text Search returns it (only the masked fields). */
export interface GooglePlace {
  id: string;
  displayName?: { text?: string };
  formattedAddress?: string;
  location?: { latitude?: number; longitude?: number };
  websiteUri?: string;
  nationalPhoneNumber?: string;
  internationalPhoneNumber?: string;
  rating?: number;
  types?: string[];
}

interface GoogleList {
  leads: Lead[];
  warnings: string[];
  requests: number;
}

/** A Google place as a Lead: `google:<id>`, types as readable categories. */
export function leadFromGooglePlace(place: GooglePlace): Lead | undefined {
  const categories = (place.types ?? []).filter((t) => !GENERIC_TYPES.has(t)).map((t) => t.replace(/_/g, " "));
  return toLead({
    placeId: `google:${place.id}`,
    name: place.displayName?.text,
    address: place.formattedAddress,
    lat: place.location?.latitude,
    lng: place.location?.longitude,
    website: place.websiteUri,
    phone: place.internationalPhoneNumber ?? place.nationalPhoneNumber,
    email: null,
    socials: null,
    rating: place.rating,
    categories,
  });
}

/** Google's error body `{error: {code, message, status}}` as one sentence. */
async function googleError(response: Response): Promise<ServiceError> {
  let detail = `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: { message?: string; status?: string } };
    if (body.error) detail = `${body.error.status ?? `HTTP ${response.status}`}: ${String(body.error.message ?? "").slice(0, 300)}`;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new ServiceError(`google: ${detail}`, response.status, retryAfterSeconds(response.headers.get("retry-after")));
}

/**
 * Google Places API (New) as a place source (docs/api.md, "Google Places"). Text Search
 * restricts only to rectangles and stops at 60 results, so a search tiles its circle
 * (`circle-tiling.ts`): each tile's pages are followed, a tile that hits the cap is split,
 * results outside the circle are dropped and duplicates (by Google id) removed. The list is
 * kept for 15 minutes, so following pages cost no request; the cursor is an offset.
 */
export class GooglePlacesProvider implements PlaceSearchProvider {
  readonly name = "google";
  private readonly lists: ListCache<GoogleList>;

  constructor(private readonly options: GooglePlacesOptions) {
    this.lists = new ListCache(LIST_TTL_MS, options.now);
  }

  async search(request: PlaceSearchRequest): Promise<PlaceSearchPage> {
    const offset = cursorOffset(request.cursor, "g");
    const key = JSON.stringify([request.center.lat, request.center.lng, request.radiusKm, request.keywords]);
    let list = this.lists.get(key);
    const fresh = !list;
    if (!list) {
      list = await this.searchCircle(request);
      this.lists.set(key, list);
    }
    return {
      ...pageOfList(orderLeads(list.leads, request.sort, request.center), offset, "g"),
      ...(offset === 0 && list.warnings.length ? { warnings: list.warnings } : {}),
      requests: { google: fresh ? list.requests : 0 },
    };
  }

  async resolvePlaceId(placeId: string, signal: AbortSignal): Promise<ResolvedPlace | undefined> {
    if (!placeId.startsWith("google:")) return undefined;
    const id = placeId.slice("google:".length);
    const response = await serviceFetch("google", `${this.base()}/v1/places/${encodeURIComponent(id)}`, {
      headers: { "X-Goog-Api-Key": this.options.apiKey, "X-Goog-FieldMask": DETAILS_FIELD_MASK },
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    if (response.status === 404) return undefined;
    if (!response.ok) throw await googleError(response);
    const place = (await response.json()) as GooglePlace;
    const lat = place.location?.latitude;
    const lng = place.location?.longitude;
    if (typeof lat !== "number" || typeof lng !== "number") return undefined;
    return { center: { lat, lng }, name: place.formattedAddress ?? placeId };
  }

  private base(): string {
    return this.options.baseUrl.replace(/\/+$/, "");
  }

  private async searchCircle(request: PlaceSearchRequest): Promise<GoogleList> {
    let requests = 0;
    let budgetCut = false;
    const mayQuery = () => requests < this.options.maxRequests;
    const query = async (box: BoundingBox): Promise<TileAnswer<GooglePlace>> => {
      const results: GooglePlace[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < PAGES_PER_QUERY; page++) {
        if (!mayQuery()) {
          budgetCut = true;
          break;
        }
        requests++;
        const answer = await this.textSearch(box, request.keywords, pageToken, request.signal);
        results.push(...answer.places);
        pageToken = answer.nextPageToken;
        if (!pageToken) break;
      }
      return { results, capped: results.length >= GOOGLE_RESULT_CAP };
    };
    const outcome = await tileCircle({ center: request.center, radiusKm: request.radiusKm, query, mayQuery, maxDepth: this.options.maxDepth ?? 4 });
    const seen = new Set<string>();
    const leads: Lead[] = [];
    for (const place of outcome.results) {
      if (seen.has(place.id)) continue;
      seen.add(place.id);
      const lead = leadFromGooglePlace(place);
      if (lead && distanceKm(request.center, lead) <= request.radiusKm) leads.push(lead);
    }
    const warnings: string[] = [];
    if (outcome.incomplete || budgetCut) {
      warnings.push(
        `google: stopped after ${requests} requests (OUTREACH_GOOGLE_MAX_REQUESTS=${this.options.maxRequests}) or at the finest tiles; some places of this dense area may be missing — narrow the radius or raise the budget`,
      );
    }
    return { leads, warnings, requests };
  }

  private async textSearch(box: BoundingBox, keywords: string, pageToken: string | undefined, signal: AbortSignal): Promise<{ places: GooglePlace[]; nextPageToken?: string }> {
    const body = {
      textQuery: keywords,
      pageSize: PAGE_SIZE,
      ...(pageToken ? { pageToken } : {}),
      locationRestriction: { rectangle: { low: { latitude: box.minLat, longitude: box.minLng }, high: { latitude: box.maxLat, longitude: box.maxLng } } },
    };
    const response = await serviceFetch("google", `${this.base()}/v1/places:searchText`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Goog-Api-Key": this.options.apiKey, "X-Goog-FieldMask": TEXT_SEARCH_FIELD_MASK },
      body: JSON.stringify(body),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    if (!response.ok) throw await googleError(response);
    const json = (await response.json()) as { places?: GooglePlace[]; nextPageToken?: string };
    return { places: (json.places ?? []).filter((p) => typeof p?.id === "string"), nextPageToken: json.nextPageToken || undefined };
  }
}
