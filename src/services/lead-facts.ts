import { getDomain } from "tldts";
import type { Lead, Socials } from "../core/schemas/lead.js";
import { normaliseSocial } from "../providers/web/extract/socials.js";
import type { SiteFacts } from "../providers/web/site-crawler.js";

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
  // Per registrable domain (PSL-aware); IP-literal sites by host and port.
  const cacheKey = getDomain(url.hostname) ?? url.host;
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
  return merged;
}
