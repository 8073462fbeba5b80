import { describe, expect, it } from "vitest";
// The same hand-written corpus the quality bench measures (ground truth included).
// @ts-expect-error plain JS module without types
import { CORPUS } from "../../../bench/fixtures/corpus.js";
import { Lead } from "../../../src/core/schemas/lead.js";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { SafeWebFetcher } from "../../../src/providers/web/safe-fetcher.js";
import { crawlSite } from "../../../src/providers/web/site-crawler.js";
import { mergeFacts } from "../../../src/services/leads/lead-facts.js";
import { fixtureLookup, startFixtureSites, type FixtureMap } from "../../helpers/fixture-sites.js";

interface CorpusSite {
  name: string;
  host: string;
  template: number;
  pages: FixtureMap[string];
  truth: { email: string | null; socials: Record<string, string> };
}
const corpus = CORPUS as CorpusSite[];

const fetcher = () => new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach/0.1", lookup: fixtureLookup });

const RULES: Record<number, string> = {
  1: "a mailto link",
  2: "JSON-LD email and sameAs",
  3: "Cloudflare data-cfemail (ignoring logo@2x.png)",
  4: "a /cdn-cgi/l/email-protection#hex link",
  5: "[at] [dot] obfuscation",
  6: "(at) obfuscation, noreply rejected",
  7: "a contact page found by its link",
  8: "a contact page found by common path",
  9: "a German Impressum",
  10: "the own-domain role inbox among several",
  11: "junk rejected, the contact page's address kept",
  12: "profiles kept, share links dropped",
  13: "a Latin-1 page",
  14: "the own address over a web agency's",
  15: "no address when there is only junk",
  16: "freemail when it is all there is",
  17: "a URL-encoded mailto with a query, domain lower-cased only",
  18: "separate text nodes, LinkedIn company over a person",
  19: "spelled-out 'at'/'dot'",
  20: "mentions légales by common path",
  21: "a contact page after a redirect to a language folder",
  22: "an address on a subdomain over freemail",
  23: "the imprint's address over an external data-protection officer's",
};
const firstOfEachTemplate = corpus.filter((s, i) => corpus.findIndex((x) => x.template === s.template) === i);

describe("crawlSite on the fixture corpus", () => {
  it.each(firstOfEachTemplate.map((s) => [RULES[s.template], s] as const))("finds %s", async (_rule, site) => {
    const sites = await startFixtureSites({ [site.host]: site.pages });
    const facts = await crawlSite(fetcher(), sites.url(site.host));
    expect(facts.email).toBe(site.truth.email);
    expect(facts.socials).toEqual(site.truth.socials);
  });

  it("keeps every output within the bounds of Lead and names the pages that gave the facts", async () => {
    const map: FixtureMap = Object.fromEntries(corpus.map((s) => [s.host, s.pages]));
    const sites = await startFixtureSites(map);
    const f = fetcher();
    for (const site of corpus) {
      const facts = await crawlSite(f, sites.url(site.host));
      const lead = mergeFacts({ placeId: `p-${site.host}`, name: site.name, address: "1 Main St", lat: 1, lng: 2, website: sites.url(site.host), domain: site.host, phone: null, rating: null, categories: [], email: null, socials: null }, facts);
      expect(() => Lead.parse(lead)).not.toThrow();
      expect(facts.businessSources.length).toBeLessThanOrEqual(4);
      if (facts.email) expect(facts.businessSources.length).toBeGreaterThan(0);
    }
  });
});

describe("crawlSite details", () => {
  it("takes the summary from meta description, og:description, JSON-LD, else the first substantial paragraph", async () => {
    const para = "We are a family-owned hardware store serving the valley since 1954, with tools, paint and friendly advice.";
    const sites = await startFixtureSites({
      "meta.de": { "/": '<meta name="description" content="  Meta   description of the shop. "><meta property="og:description" content="og text here, long enough"><p>x</p>' },
      "og.de": { "/": `<meta property="og:description" content="Open Graph description &amp; more"><p>${para}</p>` },
      "ld.de": { "/": `<script type="application/ld+json">{"@type":"Store","description":"JSON-LD <b>description</b> of the store"}</script><p>${para}</p>` },
      "para.de": { "/": `<p>Accept cookies to continue browsing this website please, we use them for statistics.</p><main><p>Short.</p><p>${para}</p></main>` },
      "long.de": { "/": `<meta name="description" content="${"word ".repeat(400)}">` },
    });
    const summary = async (host: string) => (await crawlSite(fetcher(), sites.url(host))).businessSummary;
    expect(await summary("meta.de")).toBe("Meta description of the shop.");
    expect(await summary("og.de")).toBe("Open Graph description & more");
    expect(await summary("ld.de")).toBe("JSON-LD description of the store");
    expect(await summary("para.de")).toBe(para);
    const long = (await summary("long.de"))!;
    expect(long.length).toBeLessThanOrEqual(1200);
    expect(long.endsWith("…")).toBe(true);
  });

  it("never leaves the registrable domain and respects the page budget", async () => {
    const links = ["/contact", "/about", "/kontakt", "/impressum", "/team", "/legal", "/imprint"].map((p) => `<a href="${p}">${p.slice(1)}</a>`).join("");
    const sites = await startFixtureSites({
      "www.shop.co.uk": { "/": `${links}<a href="http://evil.co.uk:1/contact">contact elsewhere</a><a href="http://blog.shop.co.uk/contact">blog contact</a>` },
      "evil.co.uk": { "/contact": "<p>x@evil.co.uk</p>" },
    });
    const facts = await crawlSite(fetcher(), sites.url("www.shop.co.uk"), { pageBudget: 4 });
    expect(facts.pagesFetched).toBe(4);
    expect(sites.hits("evil.co.uk")).toBe(0);
    expect(sites.requests.filter((r) => r.host === "www.shop.co.uk" && r.path !== "/robots.txt")).toHaveLength(4);
  });

  it("records the page an email came from in businessSources", async () => {
    const sites = await startFixtureSites({
      "shop.de": { "/": '<title>Home</title><meta name="description" content="A fine shop selling fine things."><a href="/kontakt">Kontakt</a>', "/kontakt": "<title>Kontakt</title><p>laden@shop.de</p>" },
    });
    const facts = await crawlSite(fetcher(), sites.url("shop.de"));
    expect(facts.email).toBe("laden@shop.de");
    expect(facts.businessSources).toEqual([
      { url: sites.url("shop.de", "/kontakt"), title: "Kontakt" },
      { url: sites.url("shop.de", "/"), title: "Home" },
    ]);
  });
});
