import { randomUUID } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { AppError } from "../core/errors.js";
import { Lead } from "../core/schemas/lead.js";
import { AddressPolicy } from "../providers/web/address-policy.js";
import { FetchError, SafeWebFetcher, type LookupFunction } from "../providers/web/safe-fetcher.js";
import { crawlSite, type SiteFacts } from "../providers/web/site-crawler.js";
import type { Db } from "../store/db.js";
import { EnrichmentCacheRepo } from "../store/enrichment-cache.js";
import { RetryTokensRepo } from "../store/retry-tokens.js";
import type { ServerConfig } from "./config.js";
import type { EnrichmentRun, LeadEnricher } from "./lead-enricher.js";
import { mergeFacts, planFor } from "./lead-facts.js";

/** service-api.md 3.2 / 4.2. */
export const RETRY_TOKEN_TTL_MS = 15 * 60_000;
export const RETRY_MAX_LEADS = 20;

export interface EnrichOptions {
  signal?: AbortSignal;
  /** Called with a snapshot of all leads each time one finishes. */
  onProgress?: (snapshot: Lead[]) => void;
  /** Ends the run as if its budget ran out now (the server is shutting down). */
  cutoff?: AbortSignal;
}

interface RunOptions extends EnrichOptions {
  budgetMs: number;
  /** A retry tries sites again even when a recent attempt failed. */
  ignoreFailures: boolean;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * Website enrichment of leads (issue 4): every site crawled concurrently (the fetcher
 * enforces 2 connections per host and a global limit), each within a per-site budget,
 * all within the caller's total budget; results cached per registrable domain.
 *
 * When the total budget runs out, unfinished crawls are cancelled (no work continues
 * after the answer) and their leads come back `enrichmentPending: true`; a retry token
 * lets the client finish them through endpoint 2 with a longer budget.
 */
export class EnrichmentService implements LeadEnricher {
  private fetcher: SafeWebFetcher;
  private readonly cache: EnrichmentCacheRepo;
  private readonly tokens: RetryTokensRepo;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: ServerConfig,
  ) {
    this.cache = new EnrichmentCacheRepo(db);
    this.tokens = new RetryTokensRepo(db);
    this.fetcher = this.buildFetcher();
  }

  /**
   * Replace the resolver under the fetcher's lookup guard. Tests and benches resolve
   * fixture host names to 127.0.0.1 with it (never real DNS); the guard stays in place.
   */
  useResolver(lookup: LookupFunction): void {
    this.fetcher = this.buildFetcher(lookup);
  }

  private buildFetcher(lookup?: LookupFunction): SafeWebFetcher {
    return new SafeWebFetcher({
      policy: new AddressPolicy(this.config.fetchAllow),
      userAgent: this.config.userAgent,
      totalConnections: this.config.fetchConnections,
      lookup,
    });
  }

  /** The LeadEnricher seam the lead search calls. */
  async enrichForSearch(teamId: string, leads: Lead[], options: EnrichOptions & { signal: AbortSignal }): Promise<EnrichmentRun> {
    if (!this.config.enrich) return { leads, retryToken: null };
    this.housekeeping();
    const { leads: out, finished } = await this.run(leads, { ...options, budgetMs: this.config.enrichBudgetMs, ignoreFailures: false });
    const result = out.map((lead, i) => (finished[i] ? lead : { ...lead, enrichmentPending: true }));
    // The server picks what the retry covers: pending leads with a site to crawl, in the
    // search's own order (nearest / best first), at most 20.
    const pending = result.filter((lead) => lead.enrichmentPending).slice(0, RETRY_MAX_LEADS);
    if (pending.length === 0 || options.signal.aborted) return { leads: result, retryToken: null };
    return { leads: result, retryToken: this.issueRetryToken(teamId, pending) };
  }

  /** Expired cache rows and tokens are dead weight: two indexed deletes per search. */
  private housekeeping(): void {
    const now = this.clock.now().toISOString();
    this.cache.deleteExpired(now);
    this.tokens.deleteExpired(now);
  }

  /** Store a retry token covering these leads (at most 20 are kept). */
  issueRetryToken(teamId: string, leads: Lead[]): string {
    const token = randomUUID();
    const now = this.clock.now();
    this.tokens.insert({
      token,
      team_id: teamId,
      leads: JSON.stringify(leads.slice(0, RETRY_MAX_LEADS).map(({ enrichmentPending: _p, ...lead }) => lead)),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + RETRY_TOKEN_TTL_MS).toISOString(),
    });
    return token;
  }

  /**
   * Endpoint 2, step 1: redeem the token (consumed when the retry begins, not when it
   * ends). One indistinguishable 404 for unknown, used, expired and foreign tokens.
   */
  redeemRetryToken(teamId: string, token: string): Lead[] {
    const row = this.db.transaction(() => this.tokens.consume(token, teamId, this.clock.now().toISOString())).immediate();
    if (!row) throw new AppError("retry_token_invalid", "the enrichment retry token is unknown, expired, already used or belongs to another workspace");
    return Lead.array().parse(JSON.parse(row.leads));
  }

  /**
   * Endpoint 2, step 2: enrich the redeemed leads again, with the retry's longer budget
   * and without trusting recent failures. Every lead comes back `enrichmentPending: false`,
   * found or not (service-api.md 3.3).
   */
  async enrichRedeemed(leads: Lead[], options: EnrichOptions = {}): Promise<Lead[]> {
    const settled = (list: Lead[]) => list.map((lead) => ({ ...lead, enrichmentPending: false }));
    if (!this.config.enrich) return settled(leads);
    const { leads: out } = await this.run(leads, {
      signal: options.signal,
      onProgress: options.onProgress,
      cutoff: options.cutoff,
      budgetMs: this.config.enrichRetryBudgetMs,
      ignoreFailures: true,
    });
    return settled(out);
  }

  /** Both steps of endpoint 2. */
  async retry(teamId: string, token: string, options: EnrichOptions = {}): Promise<Lead[]> {
    return this.enrichRedeemed(this.redeemRetryToken(teamId, token), options);
  }

  /** Enrich `leads` concurrently within `budgetMs`; `finished[i]` says whether lead i got its answer. */
  private async run(leads: Lead[], options: RunOptions): Promise<{ leads: Lead[]; finished: boolean[] }> {
    const out = leads.map((lead) => ({ ...lead }));
    const finished = leads.map(() => false);
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new DOMException("budget", "TimeoutError")), options.budgetMs);
    const onAbort = () => stop.abort(options.signal?.reason);
    if (options.signal?.aborted) stop.abort(options.signal.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const onCutoff = () => stop.abort(options.cutoff?.reason);
    if (options.cutoff?.aborted) onCutoff();
    options.cutoff?.addEventListener("abort", onCutoff, { once: true });
    const inFlight = new Map<string, Promise<SiteFacts | null | undefined>>();
    const report = (i: number, lead: Lead) => {
      out[i] = lead;
      finished[i] = true;
      if (!options.signal?.aborted) options.onProgress?.(out.map((l, j) => (finished[j] ? l : { ...l, enrichmentPending: true })));
    };
    try {
      await Promise.all(
        leads.map(async (lead, i) => {
          const plan = planFor(lead);
          if (plan.kind === "none") return void (finished[i] = true);
          if (plan.kind === "social") return report(i, mergeFacts(lead, { socials: { [plan.network]: plan.url } }));
          let facts = inFlight.get(plan.cacheKey);
          if (!facts) {
            facts = this.factsFor(plan.url, plan.cacheKey, stop.signal, options.ignoreFailures);
            inFlight.set(plan.cacheKey, facts);
          }
          const result = await facts;
          if (result === undefined && stop.signal.aborted) return; // cut off by the budget: pending
          report(i, result ? mergeFacts(lead, result) : lead);
        }),
      );
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      options.cutoff?.removeEventListener("abort", onCutoff);
    }
    return { leads: out, finished };
  }

  /**
   * The facts of one site: from the cache, else crawled within the per-site budget.
   * Null when the site failed (cached as a failure, for hours); undefined when the run's
   * budget cut it off (not cached: it may well answer next time).
   */
  private async factsFor(url: string, cacheKey: string, runSignal: AbortSignal, ignoreFailures: boolean): Promise<SiteFacts | null | undefined> {
    const now = this.clock.now();
    const cached = this.cache.get(cacheKey, now.toISOString());
    if (cached?.outcome === "found") return JSON.parse(cached.facts!) as SiteFacts;
    if (cached?.outcome === "failed" && !ignoreFailures) return null;
    const siteSignal = AbortSignal.any([runSignal, AbortSignal.timeout(this.config.enrichSiteBudgetMs)]);
    try {
      const facts = await crawlSite(this.fetcher, url, { signal: siteSignal });
      const at = this.clock.now();
      this.cache.put({
        domain: cacheKey,
        outcome: "found",
        facts: JSON.stringify({ ...facts, pagesFetched: 0 }),
        failure: null,
        fetched_at: at.toISOString(),
        expires_at: new Date(at.getTime() + this.config.enrichCacheDays * DAY).toISOString(),
      });
      return facts;
    } catch (err) {
      if (runSignal.aborted) return undefined;
      const reason = err instanceof FetchError ? err.reason : "error";
      const at = this.clock.now();
      this.cache.putFailure(cacheKey, reason, at.toISOString(), new Date(at.getTime() + this.config.enrichFailureCacheHours * HOUR).toISOString());
      return null;
    }
  }
}
