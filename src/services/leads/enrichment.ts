import { randomUUID } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import { Lead, type EnrichmentError } from "../../core/schemas/lead.js";
import { NodeDnsLookup } from "../../providers/dns/resolver.js";
import { AddressPolicy } from "../../providers/web/address-policy.js";
import { BrowserRenderer } from "../../providers/web/browser-renderer.js";
import { ExtractionPool } from "../../providers/web/extraction-pool.js";
import { FetchError, SafeWebFetcher, type LookupFunction } from "../../providers/web/safe-fetcher.js";
import { crawlSite, type SiteFacts } from "../../providers/web/site-crawler.js";
import type { Db } from "../../store/db.js";
import { EnrichmentCacheRepo } from "../../store/enrichment-cache.js";
import { RetryTokensRepo } from "../../store/retry-tokens.js";
import type { ServerConfig } from "../config.js";
import { EmailDomainCheck } from "./email-domains.js";
import { enrichmentErrorOf, parseCachedFailure } from "./enrichment-errors.js";
import type { EnrichmentRun, LeadEnricher } from "./lead-enricher.js";
import { mergeFacts, planFor } from "./lead-facts.js";
import type { ServiceDeps } from "../deps.js";

/** Retry tokens and what they cover (docs/api.md, "Endpoint 2"). */
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
  /** Time one site may take (a retry gives a slow site its whole budget). */
  siteBudgetMs: number;
  /** A retry tries sites again even when a recent attempt failed. */
  ignoreFailures: boolean;
  /** `--refresh`: crawl again even when the cache has the site's facts. */
  refresh: boolean;
  /**
   * A search leaves a site that was merely slow pending (the retry token covers it); the
   * retry, which gave it its longer budget, reports it as a timeout.
   */
  slowIsPending: boolean;
}

/** What became of one site in one run. */
type SiteOutcome = { kind: "found"; facts: SiteFacts } | { kind: "failed"; error: EnrichmentError } | { kind: "cut" };

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * Website enrichment of leads (docs/api.md): every site crawled concurrently (the fetcher
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
  private pool: ExtractionPool | undefined;
  /** Headless Chromium for script-built pages (`OUTREACH_BROWSER`), started at its first page. */
  browser: BrowserRenderer | undefined;
  private readonly emailCheck: EmailDomainCheck | undefined;
  /** Addresses dropped because their domain cannot receive mail, since start (figures and logs). */
  emailsDropped = 0;

  private readonly db: Db;
  private readonly clock: Clock;
  private readonly config: ServerConfig;

  constructor(deps: Pick<ServiceDeps, "db" | "clock" | "config">) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.config = deps.config;
    this.cache = new EnrichmentCacheRepo(deps.db);
    this.tokens = new RetryTokensRepo(deps.db);
    this.fetcher = this.buildFetcher();
    this.browser = this.buildBrowser();
    // No extraction workers yet: they start with the first site that is crawled (see
    // factsFor), so a search answered from the cache, or with nothing to crawl, never
    // starts (and never has to stop) a thread.
    const config = deps.config;
    if (config.emailDnsCheck) {
      const lookup = new NodeDnsLookup({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs, tries: config.dnsTries });
      this.emailCheck = new EmailDomainCheck(lookup, () => this.clock.now().getTime());
    }
  }

  /** Stop the extraction workers (the data directory is closing). */
  close(): void {
    void this.pool?.destroy();
    this.pool = undefined;
    void this.browser?.close();
    this.browser = undefined;
  }

  /**
   * Replace the resolver under the fetcher's lookup guard. Tests and benches resolve
   * fixture host names to 127.0.0.1 with it (never real DNS); the guard stays in place.
   */
  useResolver(lookup: LookupFunction): void {
    this.fetcher = this.buildFetcher(lookup);
    void this.browser?.close();
    this.browser = this.buildBrowser();
  }

  private buildBrowser(): BrowserRenderer | undefined {
    return this.config.browser ? new BrowserRenderer({ executablePath: this.config.browser, pages: this.config.browserPages, fetcher: this.fetcher, memoryCeilingMb: this.config.browserMemoryMb, cpus: this.config.browserCpus }) : undefined;
  }

  private buildFetcher(lookup?: LookupFunction): SafeWebFetcher {
    return new SafeWebFetcher({
      policy: new AddressPolicy(this.config.fetchAllow),
      userAgent: this.config.userAgent,
      totalConnections: this.config.fetchConnections,
      proxy: this.config.proxy,
      lookup,
    });
  }

  /** The LeadEnricher seam the lead search calls. */
  async enrichForSearch(teamId: string, leads: Lead[], options: EnrichOptions & { signal: AbortSignal; refresh?: boolean }): Promise<EnrichmentRun> {
    if (!this.config.enrich) return { leads, retryToken: null };
    this.housekeeping();
    const refresh = options.refresh === true;
    const { leads: out, finished } = await this.run(leads, { ...options, budgetMs: this.config.enrichBudgetMs, siteBudgetMs: this.config.enrichSiteBudgetMs, ignoreFailures: refresh, refresh, slowIsPending: true });
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
      leads: JSON.stringify(leads.slice(0, RETRY_MAX_LEADS).map(({ enrichmentPending: _p, enrichmentError: _e, ...lead }) => lead)),
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
   * found or not (docs/api.md, "Endpoint 2").
   */
  async enrichRedeemed(leads: Lead[], options: EnrichOptions = {}): Promise<Lead[]> {
    const settled = (list: Lead[]) => list.map((lead) => ({ ...lead, enrichmentPending: false }));
    if (!this.config.enrich) return settled(leads);
    const { leads: out, finished } = await this.run(leads, {
      signal: options.signal,
      onProgress: options.onProgress,
      cutoff: options.cutoff,
      budgetMs: this.config.enrichRetryBudgetMs,
      siteBudgetMs: this.config.enrichRetryBudgetMs,
      ignoreFailures: true,
      refresh: false,
      slowIsPending: false,
    });
    // A site the retry's whole budget did not finish is reported as slow, so the client sees why.
    const slow: EnrichmentError = { code: "timeout", message: `the website did not finish answering within the retry's ${this.config.enrichRetryBudgetMs} ms` };
    return settled(out.map((lead, i) => (finished[i] ? lead : { ...lead, enrichmentError: slow })));
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
    const inFlight = new Map<string, Promise<SiteOutcome>>();
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
          let outcome = inFlight.get(plan.cacheKey);
          if (!outcome) {
            outcome = this.factsFor(plan.url, plan.cacheKey, lead.name, stop.signal, options);
            inFlight.set(plan.cacheKey, outcome);
          }
          const result = await outcome;
          if (result.kind === "cut") return; // cut off by the budget: pending
          const { enrichmentError: _stale, ...fresh } = lead;
          report(i, result.kind === "found" ? mergeFacts(fresh, result.facts) : { ...fresh, enrichmentError: result.error });
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
   * The facts of one site: from the cache, else crawled within the per-site budget. A
   * failure is cached (for hours) and says why. Only answers that say the site cannot be
   * read (DNS, TLS, HTTP status, robots, refused address…) are failures: a crawl cut off by
   * the run's budget, or slower than its own budget, is not cached (it may well answer
   * next time) and, in a search, stays pending for the retry (interface §3.3, §4.2).
   */
  private async factsFor(url: string, cacheKey: string, businessName: string, runSignal: AbortSignal, options: RunOptions): Promise<SiteOutcome> {
    const now = this.clock.now();
    const cached = options.refresh ? undefined : this.cache.get(cacheKey, now.toISOString());
    if (cached?.outcome === "found") return { kind: "found", facts: JSON.parse(cached.facts!) as SiteFacts };
    if (cached?.outcome === "failed" && !options.ignoreFailures) return { kind: "failed", error: parseCachedFailure(cached.failure) };
    const siteSignal = AbortSignal.any([runSignal, AbortSignal.timeout(options.siteBudgetMs)]);
    // Started before the site's first fetch: the workers load while robots.txt and the homepage arrive.
    this.pool ??= new ExtractionPool();
    try {
      const crawled = await crawlSite(this.fetcher, url, { signal: siteSignal, businessName, extractor: this.pool, renderer: this.browser, budgetMs: options.siteBudgetMs });
      const facts = await this.deliverable(crawled, siteSignal);
      if (runSignal.aborted) return { kind: "cut" };
      const at = this.clock.now();
      this.cache.put({
        domain: cacheKey,
        outcome: "found",
        facts: JSON.stringify({ ...facts, pagesFetched: 0 }),
        failure: null,
        fetched_at: at.toISOString(),
        expires_at: new Date(at.getTime() + this.config.enrichCacheDays * DAY).toISOString(),
      });
      return { kind: "found", facts };
    } catch (err) {
      if (runSignal.aborted) return { kind: "cut" };
      const error = enrichmentErrorOf(err);
      const slow = siteSignal.aborted || error.code === "timeout";
      if (slow && options.slowIsPending) return { kind: "cut" };
      // Slow, or the browser's own failure: reported, not remembered (the site may well answer next time).
      if (slow || (err as { transient?: boolean }).transient) return { kind: "failed", error };
      const at = this.clock.now();
      this.cache.putFailure(cacheKey, JSON.stringify(error), at.toISOString(), new Date(at.getTime() + this.config.enrichFailureCacheHours * HOUR).toISOString());
      return { kind: "failed", error };
    }
  }

  /**
   * Drop addresses whose domain certainly cannot receive mail (RFC 5321 §5.1), falling
   * back to the next-best address; a DNS failure keeps the address.
   */
  private async deliverable(facts: SiteFacts, signal: AbortSignal): Promise<SiteFacts> {
    const { alternatives = [], ...rest } = facts;
    if (!this.emailCheck || !facts.email) return rest;
    const dropped: NonNullable<SiteFacts["emailsDropped"]> = [];
    for (const email of [facts.email, ...alternatives]) {
      if (signal.aborted) break;
      const verdict = await this.emailCheck.verdict(email.slice(email.lastIndexOf("@") + 1));
      if (verdict.kind !== "no") return { ...rest, email, emailsDropped: dropped.length ? dropped : undefined };
      dropped.push({ email, reason: verdict.reason });
      this.emailsDropped++;
    }
    return { ...rest, email: null, emailsDropped: dropped };
  }
}
