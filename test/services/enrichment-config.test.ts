import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/services/config.js";

describe("enrichment settings", () => {
  it("have defaults", () => {
    const config = loadServerConfig({});
    expect(config).toMatchObject({ enrichSiteBudgetMs: 6000, enrichRetryBudgetMs: 25_000, enrichCacheDays: 7, enrichFailureCacheHours: 6, fetchConnections: 16, emailDnsCheck: true });
    expect(loadServerConfig({ OUTREACH_EMAIL_DNS_CHECK: "0" }).emailDnsCheck).toBe(false);
  });

  it("are read from the environment", () => {
    const config = loadServerConfig({
      OUTREACH_ENRICH_SITE_BUDGET_MS: "3000",
      OUTREACH_ENRICH_RETRY_BUDGET_MS: "9000",
      OUTREACH_ENRICH_CACHE_DAYS: "30",
      OUTREACH_ENRICH_FAILURE_CACHE_HOURS: "1",
      OUTREACH_FETCH_CONNECTIONS: "4",
    });
    expect(config).toMatchObject({ enrichSiteBudgetMs: 3000, enrichRetryBudgetMs: 9000, enrichCacheDays: 30, enrichFailureCacheHours: 1, fetchConnections: 4 });
  });

  it.each([
    ["OUTREACH_ENRICH_CACHE_DAYS", "-1"],
    ["OUTREACH_ENRICH_FAILURE_CACHE_HOURS", "two"],
    ["OUTREACH_FETCH_CONNECTIONS", "0"],
    ["OUTREACH_ENRICH_SITE_BUDGET_MS", "1.5"],
    ["OUTREACH_EMAIL_DNS_CHECK", "maybe"],
  ])("reject a bad %s naming it", (name, value) => {
    expect(() => loadServerConfig({ [name]: value })).toThrow(name);
  });

  it("OUTREACH_BROWSER: off by default, auto finds Chromium on PATH, a path must be an executable; pages 2 and a 2048 MB ceiling by default", () => {
    expect(loadServerConfig({})).toMatchObject({ browser: null, browserPages: 2, browserMemoryMb: 2048 });
    expect(loadServerConfig({ OUTREACH_BROWSER: "off" }).browser).toBeNull();
    const auto = loadServerConfig({ OUTREACH_BROWSER: "auto", OUTREACH_BROWSER_PAGES: "3" });
    expect(auto.browser).toMatch(/\/(?:chromium|chromium-browser|google-chrome(?:-stable)?)$/);
    expect(auto.browserPages).toBe(3);
    expect(loadServerConfig({ OUTREACH_BROWSER: auto.browser! }).browser).toBe(auto.browser);
    expect(() => loadServerConfig({ OUTREACH_BROWSER: "/nonexistent/chromium" })).toThrow("OUTREACH_BROWSER");
    expect(() => loadServerConfig({ OUTREACH_BROWSER: "chromium" })).toThrow("absolute path");
    expect(() => loadServerConfig({ OUTREACH_BROWSER_PAGES: "0" })).toThrow("OUTREACH_BROWSER_PAGES");
  });
});
