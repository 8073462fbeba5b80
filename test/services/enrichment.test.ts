import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.js";
import { Lead } from "../../src/core/schemas/lead.js";
import { fixtureLookup, startFixtureSites, type FixtureMap } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";

/** Fresh sites per test (the slow homepage counts its requests). */
const SITES = (): FixtureMap => ({
  "fast-bakery.de": { "/": '<meta name="description" content="Bread and cakes, baked fresh every day."><a href="mailto:info@fast-bakery.de">mail</a>' },
  // Too slow for a search's budget the first time, answered at once when retried.
  "slow-garage.de": { "/": { holdFirst: true, body: '<a href="/kontakt">Kontakt</a>' }, "/kontakt": "<p>werkstatt@slow-garage.de</p>" },
  "broken-shop.de": { "/": { status: 500, body: "oops" } },
});

function instance(config: Record<string, unknown> = {}) {
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 5000, ...config } });
  t.services.enrichment.useResolver(fixtureLookup);
  return t;
}

const never = new AbortController().signal;

describe("EnrichmentService.enrichForSearch", () => {
  it("passes leads through untouched when enrichment is off", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance({ enrich: false });
    const leads = [placeLead("1", sites.url("fast-bakery.de"))];
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(run).toEqual({ leads, retryToken: null });
    expect(sites.hits()).toBe(0);
  });

  it("fills what the place data lacks, keeps what it has, and reports each finished lead", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance();
    const snapshots: Lead[][] = [];
    const leads = [
      placeLead("1", sites.url("fast-bakery.de")),
      placeLead("2", sites.url("fast-bakery.de"), { email: "owner@fast-bakery.de", businessSummary: "From the map." }),
      placeLead("3", null),
    ];
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never, onProgress: (s) => snapshots.push(s) });
    expect(run.retryToken).toBeNull();
    expect(run.leads[0]).toMatchObject({ email: "info@fast-bakery.de", businessSummary: "Bread and cakes, baked fresh every day." });
    expect(run.leads[0]!.businessSources?.[0]?.url).toBe(sites.url("fast-bakery.de"));
    expect(run.leads[1]).toMatchObject({ email: "owner@fast-bakery.de", businessSummary: "From the map." });
    expect(run.leads[2]).toEqual(leads[2]);
    expect(snapshots).toHaveLength(2);
    for (const lead of run.leads) Lead.parse(lead);
    // one crawl for the shared domain: robots.txt + homepage + common paths
    expect(sites.requests.filter((r) => r.path === "/")).toHaveLength(1);
  });

  it("serves a repeated search from the cache without fetching again", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance();
    const leads = [placeLead("1", sites.url("fast-bakery.de")), placeLead("2", sites.url("broken-shop.de"))];
    const first = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    const fetched = sites.hits();
    expect(fetched).toBeGreaterThan(0);
    const second = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(sites.hits()).toBe(fetched);
    expect(second.leads).toEqual(first.leads);
    expect(second.leads[1]!.enrichmentPending).toBeUndefined(); // a cached failure is finished, not pending
  });

  it("refetches once the cache entry expired (failures expire sooner than successes)", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance({ enrichCacheDays: 7, enrichFailureCacheHours: 6 });
    const leads = [placeLead("1", sites.url("fast-bakery.de")), placeLead("2", sites.url("broken-shop.de"))];
    await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    const homepageHits = (host: string) => sites.requests.filter((r) => r.host === host && r.path === "/").length;
    t.clock.advance(7 * 3600_000);
    await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(homepageHits("broken-shop.de")).toBe(2);
    expect(homepageHits("fast-bakery.de")).toBe(1);
    t.clock.advance(7 * 86_400_000);
    await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(homepageHits("fast-bakery.de")).toBe(2);
  });

  it("sends nothing to a loopback site when the allow-list is off, and finishes the lead without data", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance({ fetchAllow: [] });
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("fast-bakery.de")), placeLead("2", sites.url("127.0.0.1"))], { signal: never });
    expect(run.leads.map((l) => [l.email, l.enrichmentPending])).toEqual([
      [null, undefined],
      [null, undefined],
    ]);
    expect(run.retryToken).toBeNull();
    expect(sites.hits()).toBe(0);
  });

  it("turns a Facebook 'website' into a social link without crawling it", async () => {
    const t = instance();
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", "https://www.facebook.com/BakeryBob/?ref=page")], { signal: never });
    expect(run.leads[0]!.socials).toEqual({ facebook: "https://www.facebook.com/BakeryBob" });
  });

  it("marks leads not finished within the budget as pending and issues a retry token that finds them", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance({ enrichBudgetMs: 5000 });
    const leads = [placeLead("1", sites.url("fast-bakery.de")), placeLead("2", sites.url("slow-garage.de"))];
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(run.leads[0]!.email).toBe("info@fast-bakery.de");
    expect(run.leads[0]!.enrichmentPending).toBeUndefined();
    expect(run.leads[1]).toMatchObject({ email: null, enrichmentPending: true });
    expect(run.retryToken).toMatch(/^[0-9a-f-]{36}$/);
    const retried = await t.services.enrichment.retry(t.teamId, run.retryToken!);
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ placeId: "place-2", email: "werkstatt@slow-garage.de", enrichmentPending: false });
  });

  it("stops when the caller goes away, without issuing a token", async () => {
    const sites = await startFixtureSites(SITES());
    const t = instance();
    const gone = new AbortController();
    setTimeout(() => gone.abort(), 100);
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("2", sites.url("slow-garage.de"))], { signal: gone.signal });
    expect(run.leads[0]!.enrichmentPending).toBe(true);
    expect(run.retryToken).toBeNull();
  });

  it("covers at most 20 pending leads with one token", async () => {
    const t = instance();
    const leads = Array.from({ length: 25 }, (_v, i) => placeLead(String(i), `http://site${i}.de/`));
    const token = t.services.enrichment.issueRetryToken(t.teamId, leads);
    const redeemed = t.services.enrichment.redeemRetryToken(t.teamId, token);
    expect(redeemed.map((l) => l.placeId)).toEqual(leads.slice(0, 20).map((l) => l.placeId));
  });
});

describe("retry tokens", () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err instanceof AppError ? `${err.status} ${err.code}` : String(err);
    }
    return "ok";
  };

  it("are single-use, expire after 15 minutes, and belong to one workspace", () => {
    const t = instance();
    const otherTeam = t.services.identity.createTeam({ name: "Globex", ownerId: t.userId, plan: "self-hosted" });
    const lead = [placeLead("1", "http://a.de/")];
    const svc = t.services.enrichment;

    const once = svc.issueRetryToken(t.teamId, lead);
    expect(code(() => svc.redeemRetryToken(t.teamId, once))).toBe("ok");
    expect(code(() => svc.redeemRetryToken(t.teamId, once))).toBe("404 retry_token_invalid");

    const late = svc.issueRetryToken(t.teamId, lead);
    t.clock.advance(15 * 60_000);
    expect(code(() => svc.redeemRetryToken(t.teamId, late))).toBe("404 retry_token_invalid");

    const almost = svc.issueRetryToken(t.teamId, lead);
    t.clock.advance(15 * 60_000 - 1);
    expect(code(() => svc.redeemRetryToken(t.teamId, almost))).toBe("ok");

    const foreign = svc.issueRetryToken(t.teamId, lead);
    expect(code(() => svc.redeemRetryToken(otherTeam.id, foreign))).toBe("404 retry_token_invalid");
    expect(code(() => svc.redeemRetryToken(t.teamId, foreign))).toBe("ok"); // the failed foreign attempt did not consume it
    expect(code(() => svc.redeemRetryToken(t.teamId, crypto.randomUUID()))).toBe("404 retry_token_invalid");
  });
});
