import { AppError, badRequest, isAppError } from "../../core/errors.js";
import { distanceKm, type LatLng } from "../../core/geo.js";
import { isBoundedLead } from "../../core/lead-values.js";
import { DEFAULT_RADIUS_KM, Lead, type ResolvedLocation, type SearchInput, type SearchResult } from "../../core/schemas/lead.js";
import { PAGE_SIZE, type GeocodeResult, type Geocoder, type PlaceSearchProvider } from "../../places/index.js";
import { ServiceError } from "../../providers/service-http.js";
import type { Principal } from "../access/auth.js";
import type { ContactService } from "../contacts/contacts.js";
import type { ServiceDeps } from "../deps.js";
import type { LeadEnricher } from "./lead-enricher.js";
import { PageTokens, type SearchParameters } from "./page-token.js";
import type { EffectiveLimits, PlanService } from "../access/plans.js";
import type { QuotaService } from "../access/quota.js";


/** What the search produces, in order: progress snapshots, then one complete result. */
export type SearchEvent = { type: "progress"; data: Partial<SearchResult> & { leads: SearchResult["leads"] } } | { type: "complete"; data: SearchResult };

export interface LeadSearchDeps extends Pick<ServiceDeps, "clock" | "keyring"> {
  plans: PlanService;
  /** Counted against the plan's contact limit before a search. */
  contacts: ContactService;
  quota: QuotaService;
  provider: PlaceSearchProvider;
  /** The configured place sources' names, against which a body's `sources` is checked (default: only `local`). */
  sourceNames?: readonly string[];
  geocoder: Geocoder;
  enricher: LeadEnricher;
  log?: (line: string) => void;
}

/**
 * A search that passed every check that can fail before the answer starts (validation,
 * page token, geocoding, contact limit, quota): what is left runs inside the response.
 */
export interface AcceptedSearch {
  /**
   * The search's events; stops (without refund) when `signal` aborts. When `cutoff`
   * aborts, enrichment ends as if its budget ran out and the search completes with the
   * leads still pending and a retry token.
   */
  run(signal: AbortSignal, cutoff?: AbortSignal): AsyncGenerator<SearchEvent>;
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err instanceof Error && err.name === "AbortError");
}

/**
 * Endpoint 1 (docs/api.md, "Lead search"). The steps that may refuse the request all run in
 * `accept()`, so their errors are ordinary HTTP errors; `run()` talks to the provider,
 * then enrichment, and reports as it goes.
 */
export class LeadSearchService {
  private readonly tokens: PageTokens;
  private readonly log: (line: string) => void;

  constructor(private readonly deps: LeadSearchDeps) {
    this.tokens = new PageTokens(deps.keyring, deps.clock);
    this.log = deps.log ?? ((line) => process.stderr.write(line + "\n"));
  }

  async accept(principal: Principal, input: SearchInput, signal: AbortSignal): Promise<AcceptedSearch> {
    // 401 before any other work when the caller's workspace is gone.
    const team = { id: principal.teamId, limits: this.deps.plans.limitsForTeam(principal.teamId) };
    const params: SearchParameters = {
      location: input.location,
      keywords: input.keywords,
      lat: input.lat ?? null,
      lng: input.lng ?? null,
      locationPlaceId: input.locationPlaceId ?? null,
      radiusKm: input.radiusKm ?? DEFAULT_RADIUS_KM,
      sort: input.sort ?? "relevance",
      sources: this.checkSources(input.sources),
    };

    // A following page: the token carries the centre and cursor; no geocoding, no quota.
    if (input.pageToken) {
      const state = this.tokens.verify(input.pageToken, team.id, params);
      this.assertContactRoom(team.id, team.limits);
      const located = { center: state.center, resolvedLocation: state.resolvedLocation ?? null };
      return this.accepted(team.id, params, located, state.cursor, state.searchId, null, input.refresh === true);
    }

    const place = await this.geocode(team.id, input, signal);
    this.assertContactRoom(team.id, team.limits);
    // A new search (a changed radius included) takes one unit, atomically.
    const reservation = this.deps.quota.reserve(team.id, team.limits);
    const resolvedLocation: ResolvedLocation = { name: place.name, kind: place.kind, ...place.center };
    return this.accepted(team.id, params, { center: place.center, resolvedLocation }, null, reservation.id, reservation.id, input.refresh === true);
  }

  /** The search's centre; an online geocoder or place source that cannot answer is a provider failure (nothing is reserved yet). */
  private async geocode(teamId: string, input: SearchInput, signal: AbortSignal): Promise<GeocodeResult> {
    try {
      return await this.deps.geocoder.resolve(input, this.deps.provider, signal);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      throw new AppError("provider_error", `the location could not be resolved (${err.message.slice(0, 300)}); nothing was counted against the quota, try again`, {
        body: { quota: this.deps.quota.current(teamId) },
        cause: err,
      });
    }
  }

  /** The body's `sources`, each configured on this server (400 naming one that is not), or null for the default. */
  private checkSources(sources: readonly string[] | undefined): readonly string[] | null {
    if (!sources) return null;
    const configured = this.deps.sourceNames ?? ["local"];
    for (const [i, name] of sources.entries()) {
      if (!configured.includes(name)) {
        throw badRequest(`sources[${i}]: ${JSON.stringify(name)} is not configured on this server (configured: ${configured.join(", ")}; see docs/self-hosting.md)`);
      }
      if (sources.indexOf(name) !== i) throw badRequest(`sources[${i}]: ${JSON.stringify(name)} is named twice`);
    }
    return sources;
  }

  /** 403 `contact_limit_reached` when the workspace holds as many contacts as its plan allows. */
  private assertContactRoom(teamId: string, { maxContacts, plan }: EffectiveLimits): void {
    if (maxContacts === null) return;
    const count = this.deps.contacts.count(teamId);
    if (count >= maxContacts) {
      throw new AppError(
        "contact_limit_reached",
        `the workspace holds ${count} contacts, the limit of the ${plan} plan (${maxContacts}); delete contacts or change plan before searching for more leads`,
      );
    }
  }

  private accepted(
    teamId: string,
    params: SearchParameters,
    { center, resolvedLocation }: { center: LatLng; resolvedLocation: ResolvedLocation | null },
    cursor: string | null,
    searchId: string,
    reservationId: string | null,
    refresh: boolean,
  ): AcceptedSearch {
    const deps = this.deps;
    const tokens = this.tokens;
    const log = this.log;
    return {
      async *run(signal, cutoff) {
        let page;
        try {
          page = await deps.provider.search({ center, radiusKm: params.radiusKm, keywords: params.keywords, cursor, sort: params.sort, signal, sources: params.sources ?? undefined });
        } catch (err) {
          // A cancelled search keeps its cost; a failing provider gives it back.
          // The client is gone, so nobody reads this; an AppError is not logged as a fault.
          if (isAbort(err, signal)) throw new AppError("internal_error", "the search was cancelled by the client", { cause: err });
          if (reservationId) deps.quota.refund(reservationId);
          // An outside service's failure is expected weather (its message goes to the caller); anything else is a fault worth a log line.
          if (!isAppError(err) && !(err instanceof ServiceError)) log(`lead provider ${deps.provider.name} failed: ${err instanceof Error ? err.message : String(err)}`);
          // An outside service's failure is named (it is ours to describe); anything else is not shown.
          const reason = err instanceof ServiceError ? err.message.slice(0, 500) : `${deps.provider.name} failed`;
          throw new AppError("provider_error", `no place source answered (${reason}); the search was not counted against the quota, try again`, {
            body: { quota: deps.quota.current(teamId) },
            cause: err,
          });
        }
        // The strict circle and the Lead bounds hold whatever the provider did (a page
        // may end up empty and still have a next page); a lead `toLead` made is in bounds
        // by construction, any other is checked against the schema. The place-ID filter is
        // not a second same-business rule (the provider applied the one rule,
        // same-business.ts): it keeps the API's promise that a page never holds one `placeId`
        // twice, which clients merging pages by `placeId` rely on.
        const seen = new Set<string>();
        const leads = page.leads
          .filter((lead) => isBoundedLead(lead) || Lead.safeParse(lead).success)
          .filter((lead) => distanceKm(center, lead) <= params.radiusKm)
          .filter((lead) => !seen.has(lead.placeId) && seen.add(lead.placeId))
          .slice(0, PAGE_SIZE);
        const nextPageToken = page.nextCursor ? tokens.issue(teamId, params, { searchId, center, cursor: page.nextCursor, resolvedLocation }) : null;
        const didYouMean = page.didYouMean ?? null;
        // Warnings and request counts travel on every line: a stream reader sees them at once.
        const notes = { ...(page.warnings?.length ? { warnings: page.warnings } : {}), ...(page.requests && Object.keys(page.requests).length ? { requests: page.requests } : {}) };
        yield { type: "progress", data: { center, leads, nextPageToken, resolvedLocation, didYouMean, ...notes } };

        const enriched = yield* enrich(deps.enricher, teamId, leads, { signal, cutoff, refresh }, (snapshot) => ({ center, leads: snapshot, nextPageToken, ...notes }), log);
        signal.throwIfAborted();
        // An empty first page says plainly when nothing was imported there to find (unless the
        // local source already said its whole index is empty).
        const warnings = [
          ...(page.warnings ?? []),
          ...(cursor === null && leads.length === 0 && !page.indexEmpty && !deps.geocoder.hasPlacesWithin(center, params.radiusKm) ? [noPlacesNear(params.location, center, params.radiusKm)] : []),
        ];
        yield {
          type: "complete",
          data: {
            center,
            leads: enriched.leads,
            nextPageToken,
            quota: deps.quota.current(teamId),
            enrichmentRetryToken: enriched.retryToken,
            resolvedLocation,
            didYouMean,
            ...notes,
            ...(warnings.length ? { warnings } : {}),
          },
        };
      },
    };
  }
}

/** The warning of a search where the index holds no place within the radius. */
function noPlacesNear(location: string, center: LatLng, radiusKm: number): string {
  return (
    `local: no places imported within ${radiusKm} km of ${location} (${center.lat.toFixed(4)}, ${center.lng.toFixed(4)}); ` +
    "import a region with `outreach places download <region> --import` or `outreach places import FILE` (docs/data.md)"
  );
}

/**
 * Run enrichment and turn its `onProgress` callbacks into progress events as they come.
 * An enrichment failure is not a provider failure: the leads go out as they are.
 */
async function* enrich(
  enricher: LeadEnricher,
  teamId: string,
  leads: SearchResult["leads"],
  { signal, cutoff, refresh }: { signal: AbortSignal; cutoff?: AbortSignal; refresh: boolean },
  snapshot: (leads: SearchResult["leads"]) => SearchEvent["data"] & { leads: SearchResult["leads"] },
  log: (line: string) => void,
): AsyncGenerator<SearchEvent, { leads: SearchResult["leads"]; retryToken: string | null }> {
  if (leads.length === 0) return { leads, retryToken: null };
  const pending: SearchResult["leads"][] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let outcome: { leads: SearchResult["leads"]; retryToken: string | null } = { leads, retryToken: null };
  const work = enricher
    .enrichForSearch(teamId, leads, {
      signal,
      cutoff,
      refresh,
      onProgress: (s) => {
        pending.push(s);
        wake?.();
      },
    })
    .then(
      (run) => {
        outcome = run;
      },
      (err: unknown) => {
        if (!signal.aborted) log(`enrichment failed, leads returned without it: ${err instanceof Error ? err.message : String(err)}`);
      },
    )
    .finally(() => {
      done = true;
      wake?.();
    });
  while (!done || pending.length) {
    if (pending.length) {
      yield { type: "progress", data: snapshot(pending.shift()!) };
      continue;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (done || pending.length) resolve();
    });
    wake = undefined;
  }
  await work;
  return outcome;
}
