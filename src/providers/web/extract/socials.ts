import type { Socials } from "../../../core/schemas/lead.js";
import { jsonLdNodes, stringsOf } from "./json-ld.js";
import { unwrapRedirect } from "./redirect-links.js";
import type { Cue, PageContext } from "./ownership.js";
import type { PageDigest, Zone } from "./page-digest.js";

export type SocialNetwork = keyof Socials;

/** Path first segments that are features of the network, not profiles. */
const NOT_PROFILES: Record<SocialNetwork, Set<string>> = {
  facebook: new Set(["sharer.php", "sharer", "share", "share.php", "dialog", "plugins", "tr", "login", "login.php", "home.php", "hashtag", "search", "watch", "events", "groups", "photo.php", "photos", "permalink.php", "story.php", "help", "policies", "privacy", "legal", "business", "ads", "gaming", "marketplace", "reel", "reels", "v2.0", "v3.0", "l.php", "media", "video.php", "settings", "notes", "places", "pg"]),
  instagram: new Set(["p", "reel", "reels", "tv", "explore", "accounts", "stories", "direct", "about", "legal", "developer", "share", "embed.js"]),
  twitter: new Set(["intent", "share", "home", "search", "hashtag", "i", "login", "signup", "explore", "settings", "messages", "notifications", "tos", "privacy", "compose", "widgets.js", "widgets"]),
  linkedin: new Set(),
};

/**
 * Profiles of the site builders and hosts themselves (linked from their free plans'
 * footers) and of theme vendors (whose demo content ships with their profiles in the
 * header and footer icons, left in place by many sites).
 */
const PLATFORM_HANDLES = new Set([
  "themefusion", "theme_fusion", "themefusionofficial", "elegantthemes", "envato", "envatomarket", "themeforest", "themeisle", "wpastra",
  "brainstormforce", "generatepress", "oceanwp", "kadencewp", "kadence_wp", "elementor", "divi", "enfold", "kriesi", "themify", "themezee",
  "qodeinteractive", "qode", "mikado", "select-themes", "thimpress", "themerex", "themegoods", "colorlib", "wpzoom", "studiopress",
  "yootheme", "joomla", "templatemonster", "themepunch", "flatsome", "uxthemes", "bridge", "the7", "dream-theme", "dreamtheme",
  "wix", "wixcom", "squarespace", "wordpress", "wordpressdotcom", "jimdo", "jimdocom", "godaddy", "weebly", "webnode", "strato", "strato_ag",
  "ionos", "1und1", "1and1", "one.com", "onecom", "hostinger", "shopify", "webflow", "duda", "site123", "elementor", "yola", "ovh",
  "ovhcloud", "aruba.it", "arubait", "siteground", "hostgator", "bluehost", "facebook", "instagram", "twitter", "linkedin", "meta",
  "x", "google", "youtube", "sharer", "sharethis", "addthis", "tripadvisor", "yelp", "booking", "bookingcom", "thefork", "treatwell",
]);

function networkOf(host: string): SocialNetwork | undefined {
  const h = host.toLowerCase().replace(/^(www|m|mobile|web|business|touch|[a-z]{2}(-[a-z]{2})?)\./, "");
  if (h === "facebook.com" || h === "fb.com" || h === "fb.me") return "facebook";
  if (h === "instagram.com" || h === "instagr.am") return "instagram";
  if (h === "twitter.com" || h === "x.com") return "twitter";
  if (h === "linkedin.com") return "linkedin";
  return undefined;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function hostOf(href: string): string {
  return /^(?:https?:)?\/\/([^/?#:]+)/i.exec(href.trim())?.[1] ?? /^((?:www\.)?(?:facebook|instagram|twitter|x|linkedin)\.com)\//i.exec(href.trim())?.[1] ?? "";
}

const handleOk = (s: string) => /^[A-Za-z0-9._-]{1,100}$/.test(s);
/** A builder's or theme vendor's profile, also in Facebook's "Name-<page id>" form. */
const isPlatformHandle = (handle: string) => PLATFORM_HANDLES.has(handle.toLowerCase()) || PLATFORM_HANDLES.has(handle.toLowerCase().replace(/-\d{6,}$/, ""));
/** A page name in a legacy Facebook URL: any text without slashes or controls. */
const nameOk = (s: string) => s.length >= 1 && s.length <= 200 && !/[\s/?#<>"\u0000-\u001f]/.test(s);

/**
 * A profile URL normalised (https, canonical host, no tracking query, no trailing
 * slash), or undefined for share buttons, intents, plugins, posts and anything that is
 * not a profile of one of the four networks. Legacy forms are read too:
 * `facebook.com/pages/Name/ID`, `facebook.com/p/Name-ID`, `twitter.com/#!/handle`, and the
 * Facebook page plugin (`/plugins/page.php?href=<the page>`) stands for its page.
 */
export function normaliseSocial(raw: string, depth = 0): { network: SocialNetwork; url: string } | undefined {
  let url: URL;
  const trimmed = raw.trim();
  try {
    url = new URL(trimmed.startsWith("//") ? `https:${trimmed}` : /^(www\.)?(facebook|instagram|twitter|x|linkedin)\.com\//i.test(trimmed) ? `https://${trimmed}` : trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const network = networkOf(url.hostname);
  if (!network) return undefined;
  // twitter.com/#!/handle (the 2010–2012 hash-bang URLs)
  if (network === "twitter" && /^#!\//.test(url.hash) && (url.pathname === "/" || url.pathname === "")) {
    url = new URL(`https://x.com/${url.hash.slice(3)}`);
  }
  const segments = url.pathname.split("/").filter(Boolean).map(decodeSegment);
  const first = segments[0]?.toLowerCase();
  if (network === "facebook" && first === "plugins" && depth === 0) {
    const href = url.searchParams.get("href");
    const inner = href ? normaliseSocial(href, 1) : undefined;
    return inner?.network === "facebook" ? inner : undefined;
  }
  if (!first || NOT_PROFILES[network].has(first)) return undefined;
  switch (network) {
    case "linkedin": {
      if ((first !== "company" && first !== "in" && first !== "school") || !segments[1] || !handleOk(segments[1])) return undefined;
      return { network, url: `https://www.linkedin.com/${first}/${segments[1]}` };
    }
    case "facebook": {
      if (first === "profile.php") {
        const id = url.searchParams.get("id");
        return id && /^\d{1,30}$/.test(id) ? { network, url: `https://www.facebook.com/profile.php?id=${id}` } : undefined;
      }
      if (first === "pages") {
        // /pages/<Name>/<ID> (and /pages/category/<Category>/<Name-ID>): kept as written.
        const rest = segments.slice(1);
        if (rest[0]?.toLowerCase() === "category" && rest.length >= 3 && rest.slice(0, 3).every(nameOk)) return { network, url: `https://www.facebook.com/pages/${rest.slice(0, 3).join("/")}` };
        if (rest.length >= 2 && nameOk(rest[0]!) && /^\d{5,30}$/.test(rest[1]!)) return { network, url: `https://www.facebook.com/pages/${rest[0]}/${rest[1]}` };
        return undefined;
      }
      if ((first === "p" || first === "people") && segments[1] && nameOk(segments[1])) {
        const id = segments[2] && /^\d{5,30}$/.test(segments[2]) ? `/${segments[2]}` : "";
        return { network, url: `https://www.facebook.com/${first}/${segments[1]}${id}` };
      }
      if (!handleOk(segments[0]!) || isPlatformHandle(first)) return undefined;
      return { network, url: `https://www.facebook.com/${segments[0]}` };
    }
    case "instagram":
      if (!handleOk(segments[0]!) || isPlatformHandle(first)) return undefined;
      return { network, url: `https://www.instagram.com/${segments[0]}` };
    case "twitter": {
      const handle = segments[0]!.replace(/^@/, "");
      if (!/^[A-Za-z0-9_]{1,15}$/.test(handle) || segments.length > 1 || isPlatformHandle(handle)) return undefined;
      return { network, url: `https://x.com/${handle}` };
    }
  }
}

export interface FoundSocial {
  network: SocialNetwork;
  url: string;
  /** `jsonld`: the site's own `sameAs` claim; `embed`: a page plugin; `link`: an ordinary link. */
  source: "jsonld" | "embed" | "link";
  pageUrl: string;
  zone?: Zone;
  cue?: Cue;
  /** The link's label (for matching the business's name). */
  label?: string;
}

/** Profile links of one page, each once, in order: JSON-LD `sameAs`, embeds, then links in document order. */
export function findSocials(digest: PageDigest, pageUrl: string, context: PageContext): FoundSocial[] {
  const out: FoundSocial[] = [];
  const seen = new Set<string>();
  const consider = (raw: string, social: Omit<FoundSocial, "network" | "url" | "pageUrl">) => {
    const hit = normaliseSocial(unwrapRedirect(raw));
    if (!hit || seen.has(hit.url.toLowerCase()) || out.length >= 100) return;
    seen.add(hit.url.toLowerCase());
    out.push({ ...hit, pageUrl, ...social });
  };
  for (const node of jsonLdNodes(digest.jsonLd)) for (const value of stringsOf(node.sameAs)) consider(value, { source: "jsonld" });
  for (const frame of [...digest.embeds, ...digest.frames]) consider(frame, { source: "embed" });
  for (const link of digest.links) {
    if (!networkOf(hostOf(link.href)) && !/google\.|facebook\.com\/l\.php|l\.instagram\.com/i.test(link.href)) continue;
    consider(link.href, { source: "link", zone: link.zone, cue: context.cueAt(link.block, link.offset, link.offset, true), label: link.label });
  }
  return out;
}
