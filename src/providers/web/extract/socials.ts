import type { CheerioAPI } from "cheerio";
import type { Socials } from "../../../core/schemas/lead.js";
import { jsonLdNodes, stringsOf } from "./dom.js";

export type SocialNetwork = keyof Socials;

/** Path first segments that are features of the network, not profiles. */
const NOT_PROFILES: Record<SocialNetwork, Set<string>> = {
  facebook: new Set(["sharer.php", "sharer", "share", "share.php", "dialog", "plugins", "tr", "login", "login.php", "home.php", "hashtag", "search", "watch", "events", "groups", "photo.php", "photos", "permalink.php", "story.php", "help", "policies", "privacy", "legal", "business", "ads", "pages", "gaming", "marketplace", "reel", "reels", "v2.0", "v3.0"]),
  instagram: new Set(["p", "reel", "reels", "tv", "explore", "accounts", "stories", "direct", "about", "legal", "developer", "share"]),
  twitter: new Set(["intent", "share", "home", "search", "hashtag", "i", "login", "signup", "explore", "settings", "messages", "notifications", "tos", "privacy", "compose", "widgets.js"]),
  linkedin: new Set(),
};

function networkOf(host: string): SocialNetwork | undefined {
  const h = host.toLowerCase().replace(/^(www|m|mobile|web|business|[a-z]{2}(-[a-z]{2})?)\./, "");
  if (h === "facebook.com" || h === "fb.com") return "facebook";
  if (h === "instagram.com" || h === "instagr.am") return "instagram";
  if (h === "twitter.com" || h === "x.com") return "twitter";
  if (h === "linkedin.com") return "linkedin";
  return undefined;
}

/**
 * A profile URL normalised (https, canonical host, no tracking query, no trailing
 * slash), or undefined for share buttons, intents, plugins, posts and anything that is
 * not a profile of one of the four networks.
 */
export function normaliseSocial(raw: string): { network: SocialNetwork; url: string } | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim().startsWith("//") ? `https:${raw.trim()}` : raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const network = networkOf(url.hostname);
  if (!network) return undefined;
  const segments = url.pathname.split("/").filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  const first = segments[0]?.toLowerCase();
  if (!first || NOT_PROFILES[network].has(first)) return undefined;
  const handleOk = (s: string) => /^[A-Za-z0-9._-]{1,100}$/.test(s);
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
      if (!handleOk(segments[0]!)) return undefined;
      return { network, url: `https://www.facebook.com/${segments[0]}` };
    }
    case "instagram":
      if (!handleOk(segments[0]!)) return undefined;
      return { network, url: `https://www.instagram.com/${segments[0]}` };
    case "twitter":
      if (!/^[A-Za-z0-9_]{1,15}$/.test(segments[0]!) || segments.length > 1) return undefined;
      return { network, url: `https://x.com/${segments[0]}` };
  }
}

/** Profile links of one page: JSON-LD `sameAs` first (the site's own claim), then links in document order. */
export function findSocials($: CheerioAPI): Socials {
  const socials: Socials = {};
  const consider = (raw: string) => {
    const hit = normaliseSocial(raw);
    if (!hit) return;
    // A company page is the business; a person's /in/ page only stands in until one is found.
    const upgrade = hit.network === "linkedin" && socials.linkedin?.includes("/in/") && !hit.url.includes("/in/");
    if (!socials[hit.network] || upgrade) socials[hit.network] = hit.url;
  };
  for (const node of jsonLdNodes($)) for (const value of stringsOf(node.sameAs)) consider(value);
  $("a[href]").each((_i, el) => consider($(el).attr("href") ?? ""));
  return socials;
}
