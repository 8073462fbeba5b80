import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.js";
import type { Keyring } from "../core/crypto.js";
import { badRequest } from "../core/errors.js";
import type { LatLng } from "../core/geo.js";

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
}

function digest(params: SearchParameters): string {
  // `sources` joins the list only when given, so tokens of searches without it keep their digest.
  const fields: unknown[] = [params.location, params.keywords, params.lat, params.lng, params.locationPlaceId, params.radiusKm];
  if (params.sources) fields.push(params.sources);
  const canonical = JSON.stringify(fields);
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
        "pageToken: was issued for other search parameters; send the same location, keywords, lat, lng, locationPlaceId, radiusKm and sources as the first page (a changed search is a new search, without pageToken)",
      );
    }
    if (this.clock.now().getTime() > payload.exp) {
      throw badRequest("pageToken: expired (page tokens are valid for 24 hours); start the search again without pageToken");
    }
    return { searchId: payload.search, center: { lat: payload.lat, lng: payload.lng }, cursor: payload.cursor };
  }
}
