import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.js";
import type { Keyring } from "../core/crypto.js";
import { badRequest } from "../core/errors.js";
import type { LatLng } from "../core/geo.js";
import type { ResolvedLocation } from "../core/schemas/lead.js";

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
  v: 1;
  team: string;
  params: string;
  search: string;
  lat: number;
  lng: number;
  cursor: string;
  exp: number;
  /** The resolved location's name and kind (its point is lat/lng). */
  loc?: [string, ResolvedLocation["kind"]];
}

function digest(params: SearchParameters): string {
  // The sort and the sources join the list only when not the default, so tokens issued
  // before they existed still verify for a search with the defaults.
  const bound: unknown[] = [params.location, params.keywords, params.lat, params.lng, params.locationPlaceId, params.radiusKm];
  if (params.sort !== "relevance") bound.push(params.sort);
  if (params.sources) bound.push({ sources: params.sources });
  const canonical = JSON.stringify(bound);
  return createHash("sha256").update(canonical).digest("base64url");
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
      v: 1,
      team: teamId,
      params: digest(params),
      search: state.searchId,
      lat: state.center.lat,
      lng: state.center.lng,
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
    if (payload.v !== 1 || payload.team !== teamId) {
      throw badRequest("pageToken: not a valid page token for this workspace");
    }
    if (payload.params !== digest(params)) {
      throw badRequest(
        "pageToken: was issued for other search parameters; send the same location, keywords, lat, lng, locationPlaceId, radiusKm, sort and sources as the first page (a changed search is a new search, without pageToken)",
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
