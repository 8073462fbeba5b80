import type { Zone } from "./extract/page-digest.js";
import { ABOUT_WORDS, CONTACT_WORDS, fold, IMPRINT_WORDS, PRICE_LIST_WORDS, PRIVACY_WORDS, USELESS_PATH } from "./extract/vocabulary.js";

/** What a page of the site is likely to be, by its link. */
export type PageKind = "contact" | "imprint" | "about" | "privacy" | "other";

export const KIND_SCORE: Record<PageKind, number> = { contact: 100, imprint: 95, about: 50, privacy: 25, other: 0 };

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The kind of page a link leads to, from its words (label, `aria-label`, `title`, `alt`) and its path. */
export function linkKind(url: URL, label: string): PageKind {
  const text = ` ${fold(label)} ${fold(decodePath(url.pathname + url.search))} `;
  if (CONTACT_WORDS.test(text)) return "contact";
  if (IMPRINT_WORDS.test(text)) return "imprint";
  if (ABOUT_WORDS.test(text)) return "about";
  if (PRIVACY_WORDS.test(text)) return "privacy";
  return "other";
}

/**
 * How much a link deserves a page of the crawl budget. Contact and imprint pages first;
 * when the site's words are in no vocabulary, the remaining same-site links still rank:
 * shallow paths, navigation and footer links, no query strings; files, feeds, archives,
 * shop and login pages never.
 */
export function linkScore(url: URL, link: { label: string; zone: Zone }): { kind: PageKind; score: number } | undefined {
  if (USELESS_PATH.test(url.pathname)) return undefined;
  const kind = linkKind(url, link.label);
  const depth = url.pathname.split("/").filter(Boolean).length;
  let score = KIND_SCORE[kind] + 10 - Math.min(depth, 5) * 2;
  if (url.search) score -= 4;
  if (link.zone !== "main") score += 3;
  return { kind, score };
}

/**
 * A linked PDF worth reading, picked like contact pages are (by its link's words and its
 * path): an imprint, a contact sheet, or a price list (which small businesses end with their
 * details). Imprints first. Anything else (menus, brochures, forms) is not read.
 */
export function pdfLinkScore(url: URL, label: string, kind: PageKind): number | undefined {
  if (!/\.pdf$/i.test(url.pathname)) return undefined;
  if (kind === "imprint") return 3;
  if (kind === "contact") return 2;
  return PRICE_LIST_WORDS.test(` ${fold(label)} ${fold(decodePath(url.pathname))} `) ? 1 : undefined;
}

const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|msclkid|mc_[a-z]+|_ga|ref|lang)$/i;

/**
 * One key per page, whatever link led to it: `/about`, `/about/`, `/about/index.html`,
 * `http://www.` and `https://` are the same page; tracking parameters are dropped.
 */
export function pageKey(raw: string): string {
  const url = new URL(raw);
  const host = url.hostname.toLowerCase().replace(/^www\./, "");
  const path = decodePath(url.pathname).replace(/\/(?:index|default|home)\.(?:html?|php|aspx?|jsp)$/i, "/").replace(/\/+$/, "").toLowerCase() || "/";
  const params = [...url.searchParams.entries()].filter(([k]) => !TRACKING_PARAMS.test(k)).sort(([a], [b]) => a.localeCompare(b));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : "";
  const port = url.port && url.port !== "80" && url.port !== "443" ? `:${url.port}` : "";
  return `${host}${port}${path}${query}`;
}

/**
 * Common paths tried when the homepage links to no contact or imprint page, in the
 * order the site's country makes likely (German-speaking sites must have an Impressum,
 * French ones mentions légales, Hungarian ones an impresszum).
 */
const COMMON_PATHS: Record<string, string[]> = {
  de: ["/kontakt", "/impressum", "/contact", "/ueber-uns"],
  fr: ["/contact", "/mentions-legales", "/a-propos", "/nous-contacter"],
  it: ["/contatti", "/contatto", "/contact", "/chi-siamo"],
  es: ["/contacto", "/contact", "/aviso-legal", "/quienes-somos"],
  fi: ["/yhteystiedot", "/ota-yhteytta", "/contact", "/yritys"],
  hu: ["/kapcsolat", "/impresszum", "/elerhetoseg", "/contact"],
  nl: ["/contact", "/over-ons", "/colofon"],
  pl: ["/kontakt", "/o-nas", "/contact"],
  default: ["/contact", "/contact-us", "/about", "/imprint", "/kontakt", "/impressum"],
};
const TLD_LANGUAGE: Record<string, string> = {
  de: "de", at: "de", ch: "de", li: "de", fr: "fr", be: "fr", lu: "fr", mc: "fr", it: "it", sm: "it", es: "es", mx: "es", ar: "es",
  fi: "fi", hu: "hu", nl: "nl", pl: "pl",
};

export function commonPaths(hostname: string): string[] {
  const tld = hostname.slice(hostname.lastIndexOf(".") + 1).toLowerCase();
  return COMMON_PATHS[TLD_LANGUAGE[tld] ?? "default"]!;
}
