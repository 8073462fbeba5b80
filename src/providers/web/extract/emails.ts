import type { CheerioAPI } from "cheerio";
import { parse as parseDomain } from "tldts";
import { jsonLdNodes, stringsOf, textNodes } from "./dom.js";

/** Where an address was found, in order of trust. */
export type EmailSource = "mailto" | "jsonld" | "cfemail" | "text" | "obfuscated";

export interface FoundEmail {
  email: string;
  source: EmailSource;
  pageUrl: string;
}

const EMAIL_IN_TEXT = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;
const EMAIL_SHAPE = /^[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z0-9-]{2,63}$/;

/** "name [at] domain [dot] com", "name(at)domain.com", "name at domain dot com". */
const DOT = String.raw`\s*(?:[\[\(\{<]\s*(?:dot|punkt|\.)\s*[\]\)\}>]|\s(?:dot|DOT|punkt)\s)\s*`;
const SEP = String.raw`(?:${DOT}|\.)`;
const LOCAL = String.raw`([A-Za-z0-9][A-Za-z0-9._+-]{0,63})`;
const LABELS = String.raw`[A-Za-z0-9-]{1,63}(?:${SEP}[A-Za-z0-9-]{1,63})*`;
/** A bracketed at: the domain may use plain dots. */
const OBFUSCATED_BRACKET = new RegExp(String.raw`${LOCAL}\s*[\[\(\{<]\s*(?:at|@|ät)\s*[\]\)\}>]\s*(${LABELS}${SEP}[A-Za-z]{2,24})\b`, "g");
/** A bare " at " is ordinary English: only with at least a spelled-out " dot " as well. */
const OBFUSCATED_WORDS = new RegExp(String.raw`${LOCAL}\s+(?:at|AT)\s+(${LABELS}${DOT}[A-Za-z]{2,24})\b`, "g");

/** Words that precede " at " in sentences ("we are at …"), never a mailbox spelled out. */
const SENTENCE_WORDS = /^(are|is|am|be|was|were|us|we|me|you|them|him|her|it|find|meet|see|visit|here|there|open|based|located|available|arrive|stay|look|be|sind|wir)$/i;

/** Image and asset file names that look like addresses: `logo@2x.png`. */
const ASSET_SUFFIX = /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|css|js|mjs|json|map|woff2?|ttf|eot|mp4|webm|mp3|pdf)$/i;
/** Error-tracking, site-builder and platform addresses that are never the business. */
const JUNK_DOMAINS = /(^|\.)(sentry\.io|sentry\.wixpress\.com|sentry-next\.wixpress\.com|wixpress\.com|wix\.com|squarespace\.com|godaddy\.com|ingest\.sentry\.io|example\.(com|org|net)|domain\.(com|de|tld)|yourdomain\.com|your-domain\.com|yoursite\.com|mysite\.com|email\.tld|test\.com|localhost)$/i;
const NO_REPLY = /^(no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|mailer[-_.]daemon|bounces?|postmaster)([-_.+].*)?$/i;
const PLACEHOLDER_LOCAL = /^(you|your|yourname|your\.name|your-name|youremail|your\.email|name|email|user|username|firstname|firstname\.lastname|first\.last|vorname\.nachname|max\.mustermann|john\.doe|jane\.doe|john|test|someone|somebody|xxx+)$/i;

/**
 * Normalise a candidate address, or reject it (undefined). Only the domain is
 * lower-cased: the local part is the owner's business (and "Admin@" must not become
 * "dmin@", a bug in some scrapers).
 */
export function cleanEmail(raw: string): string | undefined {
  let value = raw.trim().replace(/^mailto:/i, "");
  value = value.split("?")[0]!;
  if (/%[0-9a-f]{2}/i.test(value)) {
    try {
      value = decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  value = value.trim().replace(/^(u003[ce]|\\u003[ce])/i, "").replace(/[.,;:]+$/, "");
  if (!EMAIL_SHAPE.test(value) || value.length > 254) return undefined;
  const at = value.lastIndexOf("@");
  const local = value.slice(0, at);
  const domain = value.slice(at + 1).toLowerCase();
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) return undefined;
  if (ASSET_SUFFIX.test(value) || JUNK_DOMAINS.test(domain) || NO_REPLY.test(local) || PLACEHOLDER_LOCAL.test(local)) return undefined;
  // Long hex local parts are tracking keys (Sentry DSNs), not inboxes.
  if (/^[0-9a-f]{16,}$/i.test(local)) return undefined;
  // A real, registrable domain under a Public Suffix List TLD (rejects "2x.png", "x.local").
  const parsed = parseDomain(domain);
  if (!parsed.isIcann || !parsed.domain || parsed.isIp) return undefined;
  return `${local}@${domain}`;
}

/** Cloudflare email obfuscation: the first hex byte is the XOR key for the rest. */
export function decodeCfEmail(hex: string): string | undefined {
  if (!/^(?:[0-9a-f]{2}){2,}$/i.test(hex)) return undefined;
  const key = parseInt(hex.slice(0, 2), 16);
  let out = "";
  for (let i = 2; i < hex.length; i += 2) out += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16) ^ key);
  try {
    return decodeURIComponent(escape(out));
  } catch {
    return out;
  }
}

function deobfuscate(match: RegExpExecArray): string {
  const domain = match[2]!.replace(new RegExp(DOT, "g"), ".");
  return `${match[1]}@${domain}`;
}

/** Every acceptable address on one page, with where it came from, first occurrence kept. */
export function findEmails($: CheerioAPI, pageUrl: string): FoundEmail[] {
  const found = new Map<string, FoundEmail>();
  const add = (raw: string | undefined, source: EmailSource) => {
    const email = raw === undefined ? undefined : cleanEmail(raw);
    if (!email) return;
    const key = email.toLowerCase();
    if (!found.has(key)) found.set(key, { email, source, pageUrl });
  };

  $("a[href]").each((_i, el) => {
    const href = $(el).attr("href") ?? "";
    if (/^\s*mailto:/i.test(href)) for (const part of href.trim().slice(7).split("?")[0]!.split(",")) add(part, "mailto");
    const cf = /\/cdn-cgi\/l\/email-protection#([0-9a-f]+)/i.exec(href);
    if (cf) add(decodeCfEmail(cf[1]!), "cfemail");
  });
  for (const node of jsonLdNodes($)) for (const value of stringsOf(node.email)) add(value, "jsonld");
  $("[data-cfemail]").each((_i, el) => add(decodeCfEmail($(el).attr("data-cfemail") ?? ""), "cfemail"));
  for (const text of textNodes($)) {
    for (const match of text.matchAll(EMAIL_IN_TEXT)) add(match[0], "text");
    for (const match of text.matchAll(OBFUSCATED_BRACKET)) add(deobfuscate(match as RegExpExecArray), "obfuscated");
    for (const match of text.matchAll(OBFUSCATED_WORDS)) {
      if (!SENTENCE_WORDS.test(match[1]!)) add(deobfuscate(match as RegExpExecArray), "obfuscated");
    }
  }
  return [...found.values()];
}

const FREEMAIL = new Set([
  "gmail.com", "googlemail.com", "aol.com", "icloud.com", "me.com", "mac.com", "msn.com", "proton.me", "protonmail.com", "pm.me",
  "web.de", "t-online.de", "freenet.de", "arcor.de", "posteo.de", "mailbox.org", "orange.fr", "wanadoo.fr", "free.fr", "sfr.fr",
  "laposte.net", "libero.it", "virgilio.it", "tiscali.it", "bluewin.ch", "mail.ru", "zoho.com", "btinternet.com", "sky.com",
  "seznam.cz", "wp.pl", "o2.pl", "interia.pl", "onet.pl", "telenet.be", "skynet.be", "ziggo.nl", "kpnmail.nl", "live.com", "fastmail.com",
]);
const FREEMAIL_BRANDS = /^(yahoo|ymail|hotmail|outlook|live|gmx|yandex)$/;
const ROLE_INBOXES = /^(info|contact|kontakt|hello|hallo|office|sales|enquiries|inquiries|mail|post|team|reception|empfang|booking|bookings|reservations?|service|support|welcome|bonjour|ciao|hola|admin)$/i;

export function isFreemail(domain: string): boolean {
  const registrable = parseDomain(domain).domain ?? domain;
  return FREEMAIL.has(registrable) || FREEMAIL_BRANDS.test(parseDomain(domain).domainWithoutSuffix ?? "");
}

const SOURCE_TRUST: Record<EmailSource, number> = { mailto: 5, jsonld: 4, cfemail: 4, text: 3, obfuscated: 2 };

/**
 * The best address for the business: on the site's own registrable domain first (the
 * Public Suffix List makes `shop.co.uk` right), then role inboxes (info@, contact@…),
 * freemail last; among equals the more trusted source, then the first seen.
 */
export function rankEmails(emails: readonly FoundEmail[], siteDomain: string | null): FoundEmail[] {
  const score = (e: FoundEmail) => {
    const [local, domain] = [e.email.slice(0, e.email.lastIndexOf("@")), e.email.slice(e.email.lastIndexOf("@") + 1)];
    let s = SOURCE_TRUST[e.source];
    if (siteDomain && parseDomain(domain).domain === siteDomain) s += 100;
    if (ROLE_INBOXES.test(local)) s += 20;
    if (isFreemail(domain)) s -= 50;
    return s;
  };
  return emails
    .map((e, i) => ({ e, i, s: score(e) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.e);
}
