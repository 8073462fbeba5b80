import { getDomain } from "tldts";
import { decodeBody } from "../charset.js";
import { linkKind, linkScore, pageKey, type PageKind } from "../link-ranking.js";
import { findEmails, type FoundEmail } from "./emails.js";
import { jsonLdNodes, typesOf } from "./json-ld.js";
import { PageContext } from "./ownership.js";
import { digestHtml, type Zone } from "./page-digest.js";
import { scriptBuiltReason } from "./script-signals.js";
import { findSocials, type FoundSocial } from "./socials.js";
import { unwrapRedirect } from "./redirect-links.js";
import { findSummary, pageTitle } from "./summary.js";
import { fold, OWNER_NAME_LABEL } from "./vocabulary.js";

/** A link of the page, already judged here (off the event loop) for the crawler. */
export interface PageLink {
  url: string;
  label: string;
  zone: Zone;
  /** Its registrable domain (private suffixes included: `shop.wixsite.com`). */
  domain: string;
  /** One key per page however it is linked (`pageKey`). */
  key: string;
  /** What the link's words say the page is, and how much it deserves a page of the budget (undefined: never). */
  kind: PageKind;
  score: number | undefined;
}

/** What one page says, small enough to hand from the extraction worker to the crawler. */
export interface PageFacts {
  url: string;
  title: string;
  charset: string;
  emails: FoundEmail[];
  socials: FoundSocial[];
  summary: string | undefined;
  /** Absolute http(s) links (resolved against `<base href>`), fragment removed, in document order. */
  links: PageLink[];
  /** Frames and iframes (absolute): a frameset's content lives in them. */
  frames: string[];
  /** Where `<meta http-equiv=refresh>` or a one-line script redirect sends the reader (absolute). */
  refresh: string | undefined;
  /** The business's name as the page states it (og:site_name, JSON-LD name, title parts). */
  names: string[];
  /** Owners' names from imprint lines ("Inhaber: Max Müller"), folded. */
  owners: string[];
  /** Registrable domains that the page credits for its making or hosting ("Webdesign: <a href=…>"). */
  creditDomains: string[];
  /** Visible text characters (a frameset or a redirect page has almost none). */
  textLength: number;
  /** Why the page looks built by its scripts (script-signals.ts), when it does: a browser may show more. */
  scriptBuilt?: string;
}

const MAX_LINKS = 600;
/** Networks and big platforms linked beside credits are never the agency. */
const NOT_CREDITED = /^(?:facebook|instagram|twitter|x|linkedin|youtube|tiktok|pinterest|google|goo|apple|whatsapp|wa|t|xing|vimeo|tripadvisor|yelp|booking|wikipedia)\.[a-z.]+$/;
const BUSINESS_TYPES = /business|organization|organisation|store|shop|restaurant|cafe|bakery|hotel|dentist|physician|clinic|salon|service|agent|office|contractor|attorney|notary|brewery|bar|winery|gym|school|florist|localbusiness|pharmacy|repair|dealer|lodging/;
const HONORIFICS = new Set(["herr", "frau", "dr", "prof", "mag", "dipl", "ing", "med", "dent", "m", "mme", "mlle", "sig", "sig ra", "sr", "sra", "dott", "avv", "arch", "geom", "mr", "mrs", "ms", "und", "and", "et", "e", "y"]);

/** One page's bytes → its facts. Runs in the extraction worker; linear in the page size. */
export function extractPage(bytes: Uint8Array, contentType: string, url: string, deadline = Number.POSITIVE_INFINITY): PageFacts {
  const { text: html, charset } = decodeBody(bytes, contentType);
  const digest = digestHtml(html, deadline);
  const context = new PageContext(digest);
  let base = url;
  try {
    if (digest.baseHref) base = new URL(digest.baseHref, url).href;
  } catch {
    // an unusable <base href> is ignored, as browsers do
  }
  const absolute = (href: string): string | undefined => {
    try {
      const target = new URL(unwrapRedirect(new URL(href, base).href));
      if (target.protocol !== "http:" && target.protocol !== "https:") return undefined;
      target.hash = "";
      return target.href;
    } catch {
      return undefined;
    }
  };

  const links: PageLink[] = [];
  const creditDomains = new Set<string>();
  const pageDomain = registrable(url);
  for (const link of digest.links) {
    const target = absolute(link.href);
    if (!target) continue;
    const domain = registrable(target);
    if (links.length < MAX_LINKS && domain) {
      const parsed = new URL(target);
      const ranked = linkScore(parsed, link);
      links.push({ url: target, label: link.label.slice(0, 200), zone: link.zone, domain, key: pageKey(target), kind: ranked?.kind ?? linkKind(parsed, link.label), score: ranked?.score });
    }
    if (domain && domain !== pageDomain && !NOT_CREDITED.test(domain)) {
      const cue = context.cueAt(link.block, link.offset, link.offset + link.label.length);
      if (cue?.kind === "credit" || /^(?:webdesign|web design|design|realisation|realizzazione|hosting)\b/.test(fold(link.label))) creditDomains.add(domain);
    }
  }

  const names: string[] = [];
  if (digest.meta["og:site_name"]) names.push(digest.meta["og:site_name"]);
  for (const node of jsonLdNodes(digest.jsonLd)) {
    if (typeof node.name === "string" && typesOf(node).some((t) => BUSINESS_TYPES.test(t))) names.push(node.name);
  }
  if (digest.title) names.push(...digest.title.split(/\s+[|–—·•:-]\s+|\s*[|–—·•]\s*/).filter((p) => p.trim().length >= 3).slice(0, 3));

  const textLength = digest.blocks.reduce((n, b) => n + b.text.length, 0);
  return {
    url,
    title: pageTitle(digest, new URL(url).hostname),
    charset,
    emails: findEmails(digest, url, context),
    socials: findSocials(digest, url, context),
    summary: findSummary(digest),
    links,
    frames: digest.frames.map(absolute).filter((u): u is string => Boolean(u)),
    refresh: digest.refresh ? absolute(digest.refresh) : undefined,
    names: names.map((n) => n.slice(0, 200)).slice(0, 8),
    owners: ownerNames(digest.blocks.map((b) => b.text)),
    creditDomains: [...creditDomains].slice(0, 20),
    textLength,
    scriptBuilt: scriptBuiltReason(html, textLength, digest.scripts.reduce((n, body) => n + body.length, 0)),
  };
}

function registrable(url: string): string | undefined {
  try {
    const host = new URL(url).hostname;
    return getDomain(host, { allowPrivateDomains: true }) ?? host;
  } catch {
    return undefined;
  }
}

/** "Inhaber: Max Müller" → "max muller" (at most 10 names, from short lines only). */
function ownerNames(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (out.length >= 10) break;
    if (line.length > 300) continue;
    const folded = fold(line);
    const label = OWNER_NAME_LABEL.exec(folded);
    if (!label) continue;
    const words = folded
      .slice(label.index + label[0].length)
      .split(/[,;(|]/)[0]!
      .split(/\s+/)
      .filter(Boolean)
      .filter((w) => !HONORIFICS.has(w));
    const name = words.slice(0, 3).filter((w) => /^[a-z][a-z'-]{1,30}$/.test(w));
    if (name.length) out.push(name.join(" "));
  }
  return out;
}
