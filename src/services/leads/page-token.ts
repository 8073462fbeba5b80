import { createHash } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import type { Keyring } from "../../core/crypto.js";
import { badRequest } from "../../core/errors.js";
import type { LatLng } from "../../core/geo.js";
import type { ResolvedLocation } from "../../core/schemas/lead.js";

/** Page tokens last a day: long enough to page through a list later, short enough that stale cursors die. */
export const PAGE_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
const PURPOSE = "page-token";

/** The parameters a page token is bound to (docs/api.md, "Pages"): the same on every page. */
export interface SearchParameters {
  location: string;
  keywords: string;
  lat: number | null;
  lng: number | null;
  locationPlaceId: string | null;
  radiusKm: number;
  /** The order across pages (the default applied: "relevance"). */
  sort: "relevance" | "distance" | "name";
  /** The body's `sources`, or null for the server's default. */
  sources: readonly string[] | null;
}

/** What a page token carries besides its binding. */
export interface PageState {
  /** The search this page belongs to (its quota reservation). */
  searchId: string;
  /** The centre the first page resolved, so later pages never geocode again. */
  center: LatLng;
  /** The provider's cursor for the next page. */
  cursor: string;
  /** What the location resolved to on the first page (absent in tokens issued before it was carried). */
  resolvedLocation?: ResolvedLocation | null;
}

interface Payload {
  /** 2: `params` leaves out lat/lng, which `pin` holds; 1 (before): `params` covered them. */
  v: 1 | 2;
  team: string;
  params: string;
  search: string;
  lat: number;
  lng: number;
  /** The lat/lng the first page was asked with (null: none). */
  pin?: [number, number] | null;
  cursor: string;
  exp: number;
  /** The resolved location's name and kind (its point is lat/lng). */
  loc?: [string, ResolvedLocation["kind"]];
}

function digest(params: SearchParameters, withCoordinates: boolean): string {
  // The sort and the sources join the list only when not the default, so tokens issued
  // before they existed still verify for a search with the defaults.
  const bound: unknown[] = withCoordinates
    ? [params.location, params.keywords, params.lat, params.lng, params.locationPlaceId, params.radiusKm]
    : [params.location, params.keywords, params.locationPlaceId, params.radiusKm];
  if (params.sort !== "relevance") bound.push(params.sort);
  if (params.sources) bound.push({ sources: params.sources });
  const canonical = JSON.stringify(bound);
  return createHash("sha256").update(canonical).digest("base64url");
}

/** Coordinates as they travel in JSON compare exactly; the margin only forgives a client's own rounding of the last digits. */
function samePoint(lat: number, lng: number, other: { lat: number; lng: number }): boolean {
  return Math.abs(lat - other.lat) < 1e-9 && Math.abs(lng - other.lng) < 1e-9;
}

/**
 * The lat/lng of a following page (docs/api.md, "Pages": the client may send "the
 * centre" again): those of the first request, the `center` the first page returned, or
 * none at all. Any other point is another search.
 */
function coordinatesMatch(params: SearchParameters, payload: Payload): boolean {
  if (params.lat === null || params.lng === null) return params.lat === params.lng;
  const pin = payload.pin;
  return (pin !== null && pin !== undefined && samePoint(params.lat, params.lng, { lat: pin[0], lng: pin[1] })) || samePoint(params.lat, params.lng, payload);
}

/**
 * Signed, tamper-evident page tokens: `base64url(JSON payload).signature`, HMAC with a
 * key derived for this purpose only. The payload is readable (it holds no secret) but
 * any change breaks the signature; the binding to workspace and parameters is checked
 * after the signature, so every failure is one 400 that says what to do.
 */
export class PageTokens {
  constructor(
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {}

  issue(teamId: string, params: SearchParameters, state: PageState): string {
    const payload: Payload = {
      v: 2,
      team: teamId,
      params: digest(params, false),
      search: state.searchId,
      lat: state.center.lat,
      lng: state.center.lng,
      pin: params.lat !== null && params.lng !== null ? [params.lat, params.lng] : null,
      cursor: state.cursor,
      exp: this.clock.now().getTime() + PAGE_TOKEN_TTL_MS,
      ...(state.resolvedLocation ? { loc: [state.resolvedLocation.name, state.resolvedLocation.kind] as [string, ResolvedLocation["kind"]] } : {}),
    };
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.keyring.sign(PURPOSE, body)}`;
  }

  verify(token: string, teamId: string, params: SearchParameters): PageState {
    const [body, signature, ...rest] = token.split(".");
    if (!body || !signature || rest.length || !this.keyring.verify(PURPOSE, body, signature)) {
      throw badRequest("pageToken: not a valid page token (it must be the nextPageToken of an earlier answer, unchanged)");
    }
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
    } catch {
      throw badRequest("pageToken: not a valid page token");
    }
    if ((payload.v !== 1 && payload.v !== 2) || payload.team !== teamId) {
      throw badRequest("pageToken: not a valid page token for this workspace");
    }
    const sameSearch = payload.v === 1 ? payload.params === digest(params, true) : payload.params === digest(params, false) && coordinatesMatch(params, payload);
    if (!sameSearch) {
      throw badRequest(
        "pageToken: was issued for other search parameters; send the same location, keywords, locationPlaceId, radiusKm, sort and sources as the first page, and as lat/lng those of the first request, the center it returned, or none (a changed search is a new search, without pageToken)",
      );
    }
    if (this.clock.now().getTime() > payload.exp) {
      throw badRequest("pageToken: expired (page tokens are valid for 24 hours); start the search again without pageToken");
    }
    const center = { lat: payload.lat, lng: payload.lng };
    const resolvedLocation = payload.loc ? { name: payload.loc[0], kind: payload.loc[1], ...center } : null;
    return { searchId: payload.search, center, cursor: payload.cursor, resolvedLocation };
  }
}
