import { describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import type { PageRenderer, RenderedPage } from "../../../src/providers/web/browser-renderer.js";
import { SafeWebFetcher } from "../../../src/providers/web/safe-fetcher.js";
import { crawlSite } from "../../../src/providers/web/site-crawler.js";
import { fixtureLookup, startFixtureSites } from "../../helpers/fixture-sites.js";

/** A renderer that shows the page with its email and records the time limit it was given. */
class RecordingRenderer implements PageRenderer {
  readonly limits: Array<number | undefined> = [];
  async render(url: string, _signal: AbortSignal, timeoutMs?: number): Promise<RenderedPage> {
    this.limits.push(timeoutMs);
    return { url, html: "<html><body><p>Write to info@shell.de</p></body></html>" };
  }
}

const APP_SHELL = `<!doctype html><html><head><title>Shell</title><script src="/app.js"></script></head><body><div id="app"></div><script>${"var x=1;".repeat(4000)}</script></body></html>`;

describe("the browser's limits are what is left of the site's budget (issue 26)", () => {
  it("a render gets the time left of the crawl's budget, not a fixed 15 s", async () => {
    const sites = await startFixtureSites({ "shell.de": { "/": APP_SHELL, "/app.js": "console.log(1)" } });
    const fetcher = new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach/0.1", lookup: fixtureLookup });
    const renderer = new RecordingRenderer();
    const facts = await crawlSite(fetcher, sites.url("shell.de"), { renderer, budgetMs: 4000, signal: AbortSignal.timeout(4000) });
    expect(facts.email).toBe("info@shell.de");
    expect(renderer.limits.length).toBeGreaterThan(0);
    for (const limit of renderer.limits) {
      expect(limit).toBeGreaterThan(0);
      expect(limit).toBeLessThanOrEqual(4000);
    }
  });
});
