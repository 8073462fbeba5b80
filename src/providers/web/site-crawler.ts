import { load } from "cheerio";
import { getDomain } from "tldts";
import type { BusinessSource, Socials } from "../../core/schemas/lead.js";
import { findEmails, rankEmails, type FoundEmail } from "./extract/emails.js";
import { findSocials, normaliseSocial } from "./extract/socials.js";
import { findSummary, pageTitle } from "./extract/summary.js";
import { FetchError, type SafeWebFetcher } from "./safe-fetcher.js";

/** What one business website tells us. Every value already fits the bounds of Lead (service-api.md 2.3). */
export interface SiteFacts {
  email: string | null;
  socials: Socials;
  businessSummary: string | null;
  businessSources: BusinessSource[];
  /** Pages fetched (for figures and logs). */
  pagesFetched: number;
}

/** Pages of a site worth reading besides the homepage, found in links (path or link text). */
const CONTACT_HINT = /(contact|kontakt|impressum|imprint|mentions[-_]?legales|contatti|contacto|contato|kontakty?|yhteystiedot)/i;
const ABOUT_HINT = /(about|ueber[-_]?uns|uber[-_]?uns|über[-_]?uns|wir|a[-_]?propos|qui[-_]?sommes|chi[-_]?siamo|team|legal)/i;
/**
 * Common paths tried when the homepage links to no contact or imprint page, in the
 * order the site's country makes likely (German-speaking sites must have an Impressum,
 * French ones mentions légales), so a small page budget reaches the right one first.
 */
const COMMON_PATHS: Record<string, string[]> = {
  de: ["/kontakt", "/impressum", "/contact", "/ueber-uns", "/about"],
  fr: ["/contact", "/mentions-legales", "/a-propos", "/about", "/legal"],
  default: ["/contact", "/contact-us", "/about", "/imprint", "/legal", "/kontakt", "/impressum", "/mentions-legales"],
};
const TLD_LANGUAGE: Record<string, string> = { de: "de", at: "de", ch: "de", li: "de", fr: "fr", be: "fr", lu: "fr", mc: "fr" };

function commonPaths(hostname: string): string[] {
  const tld = hostname.slice(hostname.lastIndexOf(".") + 1).toLowerCase();
  return COMMON_PATHS[TLD_LANGUAGE[tld] ?? "default"]!;
}

export interface CrawlOptions {
  signal?: AbortSignal;
  /** Pages per site, homepage included (field-notes: 5–10). */
  pageBudget?: number;
}

/**
 * Crawl one business website: the homepage, then its own contact/about/imprint pages
 * (found from links, else from common paths), same registrable domain only, within a
 * small page budget. Throws FetchError when the homepage itself cannot be read.
 */
export async function crawlSite(fetcher: SafeWebFetcher, website: string, options: CrawlOptions = {}): Promise<SiteFacts> {
  const budget = Math.max(1, options.pageBudget ?? 6);
  const home = await fetcher.fetchPage(website, { signal: options.signal });
  // A "website" that redirects to the business's Facebook/Instagram/… page is a social link.
  const social = normaliseSocial(home.url);
  if (social) return { email: null, socials: { [social.network]: social.url }, businessSummary: null, businessSources: [], pagesFetched: 1 };
  const siteDomain = getDomain(new URL(home.url).hostname) ?? new URL(home.url).hostname;
  const startDomain = getDomain(new URL(website).hostname);
  const sameSite = (u: URL) => {
    const d = getDomain(u.hostname) ?? u.hostname;
    return (u.protocol === "http:" || u.protocol === "https:") && (d === siteDomain || d === startDomain);
  };

  const pages: Array<{ url: string; $: ReturnType<typeof load> }> = [{ url: home.url, $: load(home.text) }];
  const $home = pages[0]!.$;

  // Candidate pages from the homepage's links, contact/imprint before about.
  const linked = new Map<string, number>();
  $home("a[href]").each((_i, el) => {
    const href = $home(el).attr("href") ?? "";
    let target: URL;
    try {
      target = new URL(href, home.url);
    } catch {
      return;
    }
    target.hash = "";
    if (!sameSite(target) || target.href === home.url) return;
    const label = `${decodeURIComponentSafe(target.pathname)} ${$home(el).text()}`;
    const priority = CONTACT_HINT.test(label) ? 2 : ABOUT_HINT.test(label) ? 1 : 0;
    if (priority > (linked.get(target.href) ?? 0)) linked.set(target.href, priority);
  });
  const queue = [...linked.entries()].sort((a, b) => b[1] - a[1]).map(([u]) => u);
  const hasContactLink = [...linked.values()].some((p) => p === 2);
  if (!hasContactLink) {
    for (const path of commonPaths(new URL(home.url).hostname)) {
      const url = new URL(path, home.url).href;
      if (!queue.includes(url)) queue.push(url);
    }
  }

  const extra = queue.slice(0, budget - 1);
  const fetched = await Promise.all(
    extra.map((url) =>
      fetcher.fetchPage(url, { signal: options.signal }).then(
        (page) => (sameSite(new URL(page.url)) ? page : undefined),
        (err: unknown) => {
          // A missing or refused sub-page costs nothing; cancellation does stop the site.
          if (err instanceof FetchError && err.reason === "aborted") throw err;
          return undefined;
        },
      ),
    ),
  );
  for (const page of fetched) if (page && !pages.some((p) => p.url === page.url)) pages.push({ url: page.url, $: load(page.text) });

  return factsFrom(pages, siteDomain, 1 + extra.length);
}

function factsFrom(pages: Array<{ url: string; $: ReturnType<typeof load> }>, siteDomain: string, pagesFetched: number): SiteFacts {
  const emails: FoundEmail[] = [];
  const socials: Socials = {};
  const givers = new Map<string, string>(); // url → title, in the order the facts were found
  let summary: string | undefined;
  for (const { url, $ } of pages) {
    const title = pageTitle($, new URL(url).hostname);
    const pageEmails = findEmails($, url);
    emails.push(...pageEmails.filter((e) => !emails.some((x) => x.email.toLowerCase() === e.email.toLowerCase())));
    for (const [network, link] of Object.entries(findSocials($)) as Array<[keyof Socials, string]>) {
      if (!socials[network]) {
        socials[network] = link;
        if (!givers.has(url)) givers.set(url, title);
      }
    }
    if (!summary) {
      summary = findSummary($);
      if (summary && !givers.has(url)) givers.set(url, title);
    }
  }
  const best = rankEmails(emails, siteDomain)[0];
  const sources: BusinessSource[] = [];
  const addSource = (url: string, title: string) => {
    if (sources.length < 4 && !sources.some((s) => s.url === url) && /^https?:\/\//i.test(url) && url.length <= 2048) sources.push({ url, title: title.slice(0, 300) });
  };
  if (best) addSource(best.pageUrl, givers.get(best.pageUrl) ?? pageTitle(pages.find((p) => p.url === best.pageUrl)!.$, siteDomain));
  for (const [url, title] of givers) addSource(url, title);
  return {
    email: best && best.email.length <= 254 ? best.email : null,
    socials,
    businessSummary: summary ?? null,
    businessSources: sources,
    pagesFetched,
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
