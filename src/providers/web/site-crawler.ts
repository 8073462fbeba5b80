import { getDomain } from "tldts";
import type { BusinessSource, Socials } from "../../core/schemas/lead.js";
import type { PageFacts } from "./extract/page-facts.js";
import { chooseSocials, mergeEmails, rankEmails, type SiteIdentity } from "./extract/ranking.js";
import { normaliseSocial } from "./extract/socials.js";
import { ExtractionError, sharedExtractionPool, type PageExtractor } from "./extraction-pool.js";
import { commonPaths, KIND_SCORE, pageKey, pdfLinkScore, type PageKind } from "./link-ranking.js";
import type { PageRenderer } from "./browser-renderer.js";
import { FetchError, type SafeWebFetcher } from "./safe-fetcher.js";

/** What one business website tells us. Every value already fits the bounds of Lead (docs/api.md, "Lead values"). */
export interface SiteFacts {
  email: string | null;
  /** The next-best addresses, best first (the service drops those whose domain cannot receive mail). */
  alternatives?: string[];
  socials: Socials;
  businessSummary: string | null;
  businessSources: BusinessSource[];
  /** Pages fetched (for figures and logs). */
  pagesFetched: number;
  /** Addresses left out because their domain cannot receive mail (set by the enrichment service). */
  emailsDropped?: Array<{ email: string; reason: string }>;
}

export interface CrawlOptions {
  signal?: AbortSignal;
  /** Pages per site, homepage included: contact and imprint pages are found within a handful. */
  pageBudget?: number;
  /** The business's name (from the place data): addresses and profiles that carry it are the business's. */
  businessName?: string;
  /** Where pages are read (default: the process's worker pool). */
  extractor?: PageExtractor;
  /** A real browser for script-built pages (`OUTREACH_BROWSER`); absent: static only. */
  renderer?: PageRenderer;
  /** The site's time budget in ms (its `signal` ends there too): the browser's own limits are what is left of it. */
  budgetMs?: number;
}

/**
 * Link-in-bio and similar platform pages: given as a website, they are the business's
 * page on someone else's site. Read that one page (its profile links are the business's),
 * and follow it to the business's own website when it links one.
 */
const LINK_IN_BIO = /(^|\.)(linktr\.ee|linktree\.com|lnk\.bio|linkin\.bio|beacons\.ai|bio\.link|solo\.to|taplink\.cc|taplink\.at|tap\.bio|campsite\.bio|msha\.ke|linkpop\.com|allmylinks\.com|hoo\.be|snipfeed\.co|lnkfi\.re|linkr\.bio|bio\.site|withkoji\.com|carrd\.co|many\.link|linkez\.io)$/i;

export function isLinkInBio(hostname: string): boolean {
  return LINK_IN_BIO.test(hostname);
}

function registrable(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

const MAX_WAVES = 4;
/** Linked PDFs read per site, beside the page budget, and only while no good address is found. */
const MAX_PDFS = 2;

interface ReadPage {
  facts: PageFacts;
  kind: PageKind | "home";
  /** The page is a linked PDF (its source says so). */
  pdf?: boolean;
  /** The page as a browser showed it. */
  rendered?: boolean;
}
/** The browser's share of a crawl given no budget of its own. */
const RENDER_BUDGET_MS = 30_000;
/** Pages a browser opens per site: the homepage and up to 3 contact-like pages (decisions.md). */
const MAX_RENDERED = 4;

/**
 * Crawl one business website: the homepage (and what its frames or `<meta refresh>`
 * point to), then its own pages ranked by how likely they hold the business's contact
 * details (contact and imprint pages in many languages, then the rest of the site's
 * links), in waves fetched concurrently, until a good address is found or the page
 * budget is spent. Same registrable domain only; no page twice. Throws FetchError when
 * the homepage itself cannot be read.
 */
export async function crawlSite(fetcher: SafeWebFetcher, website: string, options: CrawlOptions = {}): Promise<SiteFacts> {
  const budget = Math.max(1, options.pageBudget ?? 8);
  const extractor = options.extractor ?? sharedExtractionPool();
  const signal = options.signal;
  const started = performance.now();

  const read = async (url: string, pdf = false): Promise<PageFacts> => {
    // A page is left encoded: the extraction worker decodes it (a compression bomb inflates there, not here).
    const page = pdf ? await fetcher.fetchPage(url, { signal, pdf }) : await fetcher.fetchEncodedPage(url, { signal });
    const encoded = "coding" in page && page.coding ? { coding: page.coding, maxBytes: page.maxDecodedBytes } : undefined;
    try {
      return await (pdf ? extractor.extractPdf!(page.body, page.url, signal) : extractor.extract(page.body, page.contentType, page.url, signal, encoded));
    } catch (err) {
      if (signal?.aborted) throw new FetchError("aborted", "the crawl was cancelled");
      if (err instanceof ExtractionError) throw new FetchError("unreadable", err.message);
      throw err;
    }
  };

  const home = await read(website);
  let fetched = 1;
  // A "website" that redirects to the business's Facebook/Instagram/… page is a social link.
  const social = normaliseSocial(home.url);
  if (social) return { email: null, socials: { [social.network]: social.url }, businessSummary: null, businessSources: [], pagesFetched: 1 };

  const homeHost = new URL(home.url).hostname;
  if (isLinkInBio(homeHost)) return linkInBio(fetcher, home, options, budget);

  const siteDomains = new Set([registrable(homeHost), registrable(new URL(website).hostname)]);
  const sameSite = (u: URL) => (u.protocol === "http:" || u.protocol === "https:") && siteDomains.has(registrable(u.hostname));

  const pages: ReadPage[] = [{ facts: home, kind: "home" }];
  const done = new Set([pageKey(website), pageKey(home.url)]);
  const candidates = new Map<string, { url: string; kind: PageKind; score: number }>();
  const homeKeyHost = homeHost.replace(/^www\./, "");
  /** A candidate page, by its key (same page however linked); the best score it was offered with wins. */
  const consider = (url: string, key: string, domain: string, kind: PageKind, score: number) => {
    if (!siteDomains.has(domain) || done.has(key)) return;
    // Other subdomains of the site are often other things (a shop, a blog): the homepage's host first.
    if (key.startsWith(`${homeKeyHost}/`) || key.startsWith(`${homeKeyHost}:`)) score += 10;
    const current = candidates.get(key);
    if (!current || current.score < score) candidates.set(key, { url, kind, score });
  };
  const offer = (url: string, kind: PageKind, score: number) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return;
    }
    if (sameSite(target)) consider(target.href, pageKey(target.href), registrable(target.hostname), kind, score);
  };
  /** A page's frames and redirect stand in for it; its links (judged in the worker) become candidates. */
  const offerFrom = (facts: PageFacts, homeLike: boolean) => {
    if (facts.refresh) offer(facts.refresh, "other", 1000);
    if (homeLike || facts.textLength < 200) for (const frame of facts.frames) offer(frame, "other", 900);
    for (const link of facts.links) {
      if (link.score !== undefined) consider(link.url, link.key, link.domain, link.kind, link.score - (homeLike ? 0 : 5));
    }
  };
  offerFrom(home, true);
  const hasContactLink = [...candidates.values()].some((c) => c.kind === "contact" || c.kind === "imprint");
  // Guessed paths cost a request each and are mostly 404s: two of them, beside the site's own links.
  if (!hasContactLink) commonPaths(homeHost).slice(0, 2).forEach((path, i) => offer(new URL(path, home.url).href, "other", KIND_SCORE.privacy + 1 - i));

  for (let wave = 0; wave < MAX_WAVES && fetched < budget && candidates.size > 0; wave++) {
    const identity = identityOf(pages, siteDomains, options.businessName);
    const good = goodEmailFound(pages, identity);
    const ranked = [...candidates.entries()].sort((a, b) => b[1].score - a[1].score);
    // The first wave reads the likely pages even when the homepage has an address (a
    // better one, the summary and the profiles are often there); later waves only search on.
    const worthIt = ranked.filter(([, c]) => c.score >= (good ? KIND_SCORE.about : wave === 0 ? KIND_SCORE.privacy : -100));
    if (good && wave > 0) break;
    const width = Math.min(budget - fetched, wave === 0 ? 5 : 3);
    // Without an address yet, a first wave short of likely pages is filled with the site's best other links.
    const take = good ? worthIt.slice(0, width) : [...worthIt, ...ranked.filter((r) => !worthIt.includes(r))].slice(0, width);
    if (take.length === 0) break;
    for (const [key] of take) {
      candidates.delete(key);
      done.add(key);
    }
    fetched += take.length;
    const results = await Promise.all(take.map(([, c]) => read(c.url).then((facts) => ({ facts, candidate: c }), subPageFailed)));
    for (const result of results) {
      if (!result) continue;
      const finalUrl = new URL(result.facts.url);
      if (!sameSite(finalUrl)) continue;
      const key = pageKey(finalUrl.href);
      if (pages.some((p) => pageKey(p.facts.url) === key)) continue;
      done.add(key);
      const homeLike = result.candidate.score >= 900;
      pages.push({ facts: result.facts, kind: homeLike ? "home" : result.candidate.kind });
      offerFrom(result.facts, homeLike);
    }
  }
  // Imprints and contact sheets published as PDFs: read (in a worker, within its limits)
  // only when the site's pages gave no good address; what they hold ranks as the site's own.
  if (extractor.extractPdf && !goodEmailFound(pages, identityOf(pages, siteDomains, options.businessName))) {
    const pdfs = pdfCandidates(pages, sameSite, done).slice(0, MAX_PDFS);
    fetched += pdfs.length;
    const results = await Promise.all(pdfs.map((c) => read(c.url, true).then((facts) => ({ facts, candidate: c }), subPageFailed)));
    for (const result of results) if (result) pages.push({ facts: result.facts, kind: result.candidate.kind === "imprint" ? "imprint" : "contact", pdf: true });
  }
  if (options.renderer && !goodEmailFound(pages, identityOf(pages, siteDomains, options.businessName)) && pages.some((p) => p.facts.scriptBuilt)) {
    const good = () => goodEmailFound(pages, identityOf(pages, siteDomains, options.businessName));
    const extractHtml = (html: string, url: string) => extractor.extract(new TextEncoder().encode(html), "text/html; charset=utf-8", url, signal);
    const budgetMs = options.budgetMs ?? RENDER_BUDGET_MS;
    const left = () => Math.max(1, budgetMs - (performance.now() - started));
    await renderPages(options.renderer, pages, done, sameSite, extractHtml, good, signal ?? AbortSignal.timeout(left()), left);
  }
  return factsFrom(pages, identityOf(pages, siteDomains, options.businessName), fetched);

  /** A missing or refused sub-page (or PDF) costs nothing; cancellation does stop the site. */
  function subPageFailed(err: unknown): undefined {
    if (err instanceof FetchError && err.reason === "aborted") throw err;
    if (signal?.aborted) throw new FetchError("aborted", "the crawl was cancelled");
    return undefined;
  }
}

/**
 * Script-built pages in a real browser: the homepage, then contact and imprint pages (those
 * read statically that were script-built, and those the rendered pages link), until a good
 * address is found. The rendered DOM goes through the same extractor. A browser failure
 * (crash, kill, budget) is the site's failure: it is thrown.
 */
async function renderPages(renderer: PageRenderer, pages: ReadPage[], done: Set<string>, sameSite: (u: URL) => boolean, extract: (html: string, url: string) => Promise<PageFacts>, good: () => boolean, signal: AbortSignal, left: () => number): Promise<void> {
  const queue: Array<{ url: string; kind: PageKind | "home" }> = [{ url: pages[0]!.facts.url, kind: "home" }];
  for (const page of pages) if (page.facts.scriptBuilt && (page.kind === "contact" || page.kind === "imprint")) queue.push({ url: page.facts.url, kind: page.kind });
  const rendered = new Set<string>();
  while (queue.length > 0 && rendered.size < MAX_RENDERED) {
    const next = queue.shift()!;
    if (rendered.has(pageKey(next.url))) continue;
    rendered.add(pageKey(next.url));
    const shown = await renderer.render(next.url, signal, left());
    if (!sameSite(new URL(shown.url))) continue;
    const facts = await extract(shown.html, shown.url);
    pages.push({ facts, kind: next.kind, rendered: true });
    if (good()) break;
    for (const link of facts.links) {
      if ((link.kind === "contact" || link.kind === "imprint") && link.score !== undefined && !rendered.has(link.key) && sameSite(new URL(link.url))) {
        done.add(link.key);
        queue.push({ url: link.url, kind: link.kind });
      }
    }
  }
}

/** The site's own linked PDFs worth reading (imprint, contact sheet, price list), best first. */
function pdfCandidates(pages: readonly ReadPage[], sameSite: (u: URL) => boolean, done: ReadonlySet<string>): Array<{ url: string; kind: PageKind; score: number }> {
  const found = new Map<string, { url: string; kind: PageKind; score: number }>();
  for (const link of pages.flatMap((p) => p.facts.links)) {
    if (!/\.pdf(?:$|\?)/i.test(link.url) || done.has(link.key)) continue;
    const url = new URL(link.url);
    const score = pdfLinkScore(url, link.label, link.kind);
    if (score === undefined || !sameSite(url)) continue;
    if ((found.get(link.key)?.score ?? -1) < score) found.set(link.key, { url: link.url, kind: link.kind, score });
  }
  return [...found.values()].sort((a, b) => b.score - a.score);
}

function identityOf(pages: readonly ReadPage[], domains: ReadonlySet<string>, businessName: string | undefined): SiteIdentity {
  const names = [...(businessName ? [businessName] : []), ...pages.filter((p) => p.kind === "home").flatMap((p) => p.facts.names)];
  return {
    domains,
    names,
    owners: pages.flatMap((p) => p.facts.owners),
    creditDomains: new Set(pages.flatMap((p) => p.facts.creditDomains)),
  };
}

function emailsOf(pages: readonly ReadPage[]) {
  return mergeEmails(pages.map((p) => ({ emails: p.facts.emails, contactPage: p.kind === "contact" || p.kind === "imprint" })));
}

/** An address that is the site's own general inbox, or a freemail box, is worth stopping for. */
function goodEmailFound(pages: readonly ReadPage[], identity: SiteIdentity): boolean {
  const best = rankEmails(emailsOf(pages), identity)[0];
  return best !== undefined && best.score >= 75;
}

function factsFrom(pages: readonly ReadPage[], identity: SiteIdentity, pagesFetched: number): SiteFacts {
  const ranked = rankEmails(emailsOf(pages), identity).filter((e) => e.email.length <= 254);
  const socials = chooseSocials(
    pages.flatMap((p) => p.facts.socials),
    identity,
  );
  const summaryPage = pages.find((p) => p.facts.summary);
  const sources: BusinessSource[] = [];
  const addSource = (url: string, title: string) => {
    const pdf = pages.some((p) => p.pdf && p.facts.url === url);
    const rendered = pages.some((p) => p.rendered && p.facts.url === url);
    if (sources.length < 4 && !sources.some((s) => s.url === url) && /^https?:\/\//i.test(url) && url.length <= 2048) sources.push({ url, title: title.slice(0, 300), ...(pdf ? { pdf: true } : {}), ...(rendered ? { rendered: true } : {}) });
  };
  const titleOf = (url: string) => pages.find((p) => p.facts.url === url)?.facts.title ?? new URL(url).hostname;
  const best = ranked[0];
  if (best) addSource(best.pageUrl, titleOf(best.pageUrl));
  // Then the pages that gave the summary and the profiles, in the order they were read.
  const socialPages = new Set(Object.values(socials).map((url) => pages.flatMap((p) => p.facts.socials).find((s) => s.url === url)?.pageUrl));
  for (const page of pages) if (page === summaryPage || socialPages.has(page.facts.url)) addSource(page.facts.url, page.facts.title);
  return {
    email: best?.email ?? null,
    alternatives: ranked.slice(1, 4).map((e) => e.email),
    socials,
    businessSummary: summaryPage?.facts.summary ?? null,
    businessSources: sources,
    pagesFetched,
  };
}

/**
 * A link-in-bio page: its profile links and address are the business's (the page is
 * theirs), and its first link to a website that is neither a network nor another such
 * page is crawled as the business's own site.
 */
async function linkInBio(fetcher: SafeWebFetcher, page: PageFacts, options: CrawlOptions, budget: number): Promise<SiteFacts> {
  const identity: SiteIdentity = { domains: new Set(), names: options.businessName ? [options.businessName] : page.names, owners: [], creditDomains: new Set() };
  const own = factsFrom([{ facts: { ...page, socials: page.socials.map((s) => ({ ...s, cue: undefined })) }, kind: "home" }], identity, 1);
  const website = page.links.map((l) => l.url).find((url) => {
    const host = new URL(url).hostname;
    return !normaliseSocial(url) && !isLinkInBio(host) && !/(^|\.)(facebook|instagram|twitter|x|linkedin|youtube|tiktok|wa|whatsapp|t|spotify|apple|google|pinterest|threads|snapchat)\.(com|me|be|co)$/i.test(host);
  });
  if (!website || budget < 2) return own;
  try {
    const site = await crawlSite(fetcher, website, { ...options, pageBudget: budget - 1 });
    return {
      email: site.email ?? own.email,
      alternatives: site.email ? site.alternatives : own.alternatives,
      socials: { ...site.socials, ...own.socials },
      businessSummary: site.businessSummary ?? own.businessSummary,
      businessSources: [...site.businessSources, ...own.businessSources].slice(0, 4),
      pagesFetched: 1 + site.pagesFetched,
    };
  } catch (err) {
    if (err instanceof FetchError && err.reason === "aborted") throw err;
    return own;
  }
}
