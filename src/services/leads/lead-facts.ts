import { getDomain } from "tldts";
import type { Lead, Socials } from "../../core/schemas/lead.js";
import { normaliseSocial } from "../../providers/web/extract/socials.js";
import { isLinkInBio, type SiteFacts } from "../../providers/web/site-crawler.js";

/** Directories, marketplaces and map links given as a website: none of them is the business's own site. */
const DIRECTORY_HOSTS =
  /(^|\.)(goo\.gl|maps\.app\.goo\.gl|g\.page|yelp\.[a-z.]+|tripadvisor\.[a-z.]+|booking\.com|thefork\.[a-z.]+|lieferando\.[a-z]+|just-eat\.[a-z.]+|deliveroo\.[a-z.]+|treatwell\.[a-z.]+|doctolib\.[a-z]+|jameda\.de|gelbeseiten\.de|dasoertliche\.de|pagesjaunes\.fr|paginegialle\.it|paginasamarillas\.es|wa\.me|youtube\.com|tiktok\.com|xing\.com|yellowpages\.[a-z.]+|herold\.at|local\.ch|search\.ch|opentable\.[a-z.]+|quandoo\.[a-z.]+|airbnb\.[a-z.]+|etsy\.com|ebay\.[a-z.]+|amazon\.[a-z.]+)$/i;

/** What enrichment should do with a lead's website. */
export type SitePlan =
  | { kind: "none" }
  /** The "website" is itself a Facebook/Instagram/… profile: a social link, not a site to crawl. */
  | { kind: "social"; network: keyof Socials; url: string }
  | { kind: "crawl"; url: string; cacheKey: string };

export function planFor(lead: Lead): SitePlan {
  const raw = lead.website?.trim();
  if (!raw) return { kind: "none" };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    return { kind: "none" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { kind: "none" };
  const social = normaliseSocial(url.href);
  if (social) return { kind: "social", ...social };
  if (/(^|\.)(facebook|instagram|twitter|x|linkedin)\.com$/i.test(url.hostname)) return { kind: "none" };
  // A directory or marketplace listing is not the business's site: its addresses are the platform's.
  if (DIRECTORY_HOSTS.test(url.hostname) || (/(^|\.)google\.[a-z.]+$/i.test(url.hostname) && url.pathname.startsWith("/maps"))) return { kind: "none" };
  // A link-in-bio page is one page of a shared host: its path tells businesses apart.
  if (isLinkInBio(url.hostname)) return { kind: "crawl", url: url.href, cacheKey: `${url.host}${url.pathname.replace(/\/+$/, "")}`.toLowerCase() };
  // Per registrable domain (PSL-aware, private suffixes too: two shops on one builder's
  // subdomains are two sites); IP-literal sites by host and port.
  const cacheKey = getDomain(url.hostname, { allowPrivateDomains: true }) ?? url.host;
  return { kind: "crawl", url: url.href, cacheKey };
}

/**
 * Fold website facts into a lead: values the lead already has (from the place data)
 * stay; the website fills what is missing. Output respects the bounds of Lead.
 */
export function mergeFacts(lead: Lead, facts: Partial<SiteFacts> & { socials?: Socials }): Lead {
  const socials: Socials = { ...(facts.socials ?? {}), ...(lead.socials ?? {}) };
  const merged: Lead = {
    ...lead,
    email: lead.email ?? facts.email ?? null,
    socials: Object.keys(socials).length ? socials : lead.socials,
  };
  if (!lead.businessSummary && facts.businessSummary) merged.businessSummary = facts.businessSummary.slice(0, 1200);
  if (!lead.businessSources?.length && facts.businessSources?.length) merged.businessSources = facts.businessSources.slice(0, 4);
  // The site was read, but every address on it has a domain that cannot receive mail: say so.
  const dropped = facts.emailsDropped ?? [];
  if (!merged.email && dropped.length) {
    const list = dropped.map((d) => d.email).join(", ");
    merged.enrichmentError = { code: "undeliverable", message: `found ${list}, but ${dropped[0]!.reason}`.slice(0, 500) };
  }
  return merged;
}
