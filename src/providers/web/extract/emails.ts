import { cleanEmail as leadEmail } from "../../../core/lead-values.js";
import { scanAddresses } from "./address-scan.js";
import { jsonLdNodes, stringsOf } from "./json-ld.js";
import type { Cue } from "./ownership.js";
import { PageContext } from "./ownership.js";
import type { PageDigest, Zone } from "./page-digest.js";

/** Where an address was found, in order of trust. */
export type EmailSource = "mailto" | "jsonld" | "cfemail" | "text" | "obfuscated" | "script";

export interface FoundEmail {
  email: string;
  source: EmailSource;
  pageUrl: string;
  zone?: Zone;
  /** What the words around it say about whose it is. */
  cue?: Cue;
}

const EMAIL_SHAPE = /^[A-Za-z0-9._%+'-]{1,64}@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,62})\.)+[\p{L}\p{N}-]{2,63}$/u;

/** Image and asset file names that look like addresses: `logo@2x.png`. */
const ASSET_SUFFIX = /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|css|js|mjs|json|map|woff2?|ttf|eot|mp4|webm|mp3|pdf|php|html?)$/i;
/** Error-tracking, site-builder, hosting and platform addresses that are never the business. */
const JUNK_DOMAINS =
  /(^|\.)(sentry\.io|sentry\.wixpress\.com|sentry-next\.wixpress\.com|wixpress\.com|wix\.com|squarespace\.com|godaddy\.com|jimdo\.com|weebly\.com|webnode\.[a-z]+|strato\.de|ionos\.[a-z]+|1und1\.de|one\.com|hostinger\.[a-z]+|wordpress\.(com|org)|shopify\.com|cloudflare\.com|w3\.org|schema\.org|jquery\.com|google\.com|gstatic\.com|facebook\.com|instagram\.com|twitter\.com|x\.com|linkedin\.com|ingest\.sentry\.io|example\.(com|org|net)|domain\.(com|de|tld)|yourdomain\.com|your-domain\.com|yoursite\.com|mysite\.com|email\.tld|test\.com|localhost|mustermann\.de|musterfirma\.de|beispiel\.de|exemple\.(fr|com)|esempio\.it|ejemplo\.com)$/i;
const NO_REPLY = /^(no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|mailer[-_.]daemon|bounces?)([-_.+].*)?$/i;
const PLACEHOLDER_LOCAL = /^(you|your|yourname|your\.name|your-name|youremail|your\.email|name|email|e-mail|user|username|firstname|firstname\.lastname|first\.last|vorname\.nachname|vorname|nachname|max\.mustermann|mustermann|john\.doe|jane\.doe|john|test|someone|somebody|xxx+|nome|nom|prenom\.nom|nombre|mario\.rossi)$/i;

/**
 * Normalise a candidate address, or reject it (undefined). Only the domain is
 * lower-cased: the local part is the owner's business (and "Admin@" must not become
 * "dmin@", a bug in some scrapers).
 */
export function cleanEmail(raw: string): string | undefined {
  let value = raw.trim().replace(/^mailto:(?:\/\/)?/i, "");
  value = value.split("?")[0]!;
  if (/%[0-9a-f]{2}/i.test(value)) {
    try {
      value = decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  value = value
    .trim()
    .replace(/^mailto:(?:\/\/)?/i, "")
    .replace(/^(u003[ce]|\\u003[ce])/i, "")
    .replace(/^[.'_-]+/, "")
    .replace(/[.,;:'-]+$/, "");
  // The shape of an address in page text first (no quoted or non-ASCII local parts there),
  // then the one address grammar every lead's email passes, with a registrable domain under
  // a Public Suffix List TLD (rejects "2x.png", "x.local"): core/lead-values.ts.
  if (!EMAIL_SHAPE.test(value)) return undefined;
  const address = leadEmail(value);
  if (!address) return undefined;
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (ASSET_SUFFIX.test(address) || JUNK_DOMAINS.test(domain) || NO_REPLY.test(local) || PLACEHOLDER_LOCAL.test(local)) return undefined;
  // Long hex local parts are tracking keys (Sentry DSNs), not inboxes.
  if (/^[0-9a-f]{16,}$/i.test(local)) return undefined;
  return address;
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

/**
 * The ways people spell an address so that harvesters miss it, turned back into `@` and
 * `.`: bracketed words in many languages (`[at]`, `(AT)`, `{ät}`, `[arobase]`, `(chiocciola)`,
 * `[kukac]`, `(dot)`, `[punkt]`, `[point]`, `(punto)`, `(piste)`, `[pont]`…), `_at_`, and
 * spaces around `@`. Every pattern is bounded, so a pass is linear in the text.
 */
const AT_WORDS = "at|ät|@|arobase|arroba|chiocciola|chiocc|kukac|snabel-?a|apenstaartje|malpa|małpa|zavinac|zavináč|klammeraffe";
const DOT_WORDS = "dot|punkt|point|punto|piste|pont|kropka|tecka|tečka|prick|punt|ponto|\\.";
const BRACKET_AT = new RegExp(String.raw`\s{0,3}[\[\(\{<]\s{0,2}(?:${AT_WORDS})\s{0,2}[\]\)\}>]\s{0,3}`, "gi");
const BRACKET_DOT = new RegExp(String.raw`\s{0,3}[\[\(\{<]\s{0,2}(?:${DOT_WORDS})\s{0,2}[\]\)\}>]\s{0,3}`, "gi");
const SYMBOL_AT = /(?<=[A-Za-z0-9])(?:_at_|-at-|\*at\*|#at#|\|at\|)(?=[A-Za-z0-9])/gi;
const SPACED_AT = /(?<=[A-Za-z0-9._-])(?:\s{1,3}@\s{0,3}|@\s{1,3})(?=[A-Za-z0-9])/g;
/** Spelled-out words without brackets: a bare English " at " needs a spelled-out " dot " as well. */
const BARE_AT = /\s(?:at|AT|At|ät|arobase|arroba|chiocciola|kukac)\s/g;
const BARE_FOREIGN_AT = /\s(?:ät|arobase|arroba|chiocciola|kukac)\s/i;
const BARE_DOT = /\s(?:dot|DOT|punkt|point|punto|piste|pont|kropka)\s/g;
const OBFUSCATION_HINT = /[\[\(\{<_*#|]|\s@|@\s/;
/** Words that precede " at " in sentences ("we are at …"), never a mailbox spelled out. */
const SENTENCE_WORDS = /^(are|is|am|be|was|were|us|we|me|you|them|him|her|it|find|meet|see|visit|here|there|open|based|located|available|arrive|stay|look|sind|wir|ist|bin|nous|sommes|siamo|estamos|olemme|vagyunk)$/i;

function deobfuscated(text: string): string[] {
  const variants: string[] = [];
  if (OBFUSCATION_HINT.test(text)) {
    const a = text.replace(BRACKET_AT, "@").replace(BRACKET_DOT, ".").replace(SYMBOL_AT, "@").replace(SPACED_AT, "@");
    if (a !== text) variants.push(a);
  }
  BARE_DOT.lastIndex = 0;
  if (BARE_DOT.test(text) || BARE_FOREIGN_AT.test(text)) {
    const b = text.replace(BRACKET_AT, "@").replace(BRACKET_DOT, ".").replace(BARE_AT, "@").replace(BARE_DOT, ".");
    if (b !== text) variants.push(b);
  }
  return variants;
}

/**
 * Addresses inside scripts: site builders' page data (JSON escapes) and the cloaking
 * scripts of CMSs (Joomla 3 writes `var addy1 = 'in' + '&#102;o' + '&#64;'; addy1 = addy1 +
 * 'shop' + '&#46;' + 'de';`): escapes and entities decoded, string concatenation undone,
 * including appends to the same variable.
 */
function unescapeScript(text: string): string {
  return text
    .replace(/\\u0040|\\x40|&commat;|%40/gi, "@")
    .replace(/\\u002e|\\x2e/gi, ".")
    .replace(/&#(\d{1,7});|&#x([0-9a-f]{1,6});/gi, (entity, dec: string | undefined, hex: string | undefined) => {
      const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    })
    .replace(/\\\//g, "/")
    .replace(/["']\s{0,5};\s{0,5}([A-Za-z_$][\w$]{0,60})\s{0,5}=\s{0,5}\1\s{0,5}\+\s{0,5}["']/g, "")
    .replace(/["']\s{0,5}\+\s{0,5}["']/g, "");
}

const MAX_PER_PAGE = 200;

/** Every acceptable address on one page, with where it came from and whose the words around it say it is. */
export function findEmails(digest: PageDigest, pageUrl: string, context = new PageContext(digest)): FoundEmail[] {
  const found = new Map<string, FoundEmail>();
  const validity = new Map<string, string | undefined>();
  const accept = (raw: string) => {
    if (!validity.has(raw)) {
      if (validity.size > 5000) validity.clear();
      validity.set(raw, cleanEmail(raw));
    }
    return validity.get(raw);
  };
  const add = (email: string | undefined, source: EmailSource, where?: { block: number; offset: number; end: number }) => {
    if (!email || found.size >= MAX_PER_PAGE) return;
    const key = email.toLowerCase();
    if (found.has(key)) return;
    const block = where ? digest.blocks[where.block] : undefined;
    found.set(key, { email, source, pageUrl, zone: block?.zone, cue: where ? context.cueAt(where.block, where.offset, where.end) : undefined });
  };

  for (const link of digest.links) {
    if (!/^\s*mailto:/i.test(link.href)) continue;
    const body = link.href.trim().slice(7).replace(/^\/\//, "");
    const where = { block: link.block, offset: link.offset, end: link.offset + link.label.length };
    for (const part of body.split("?")[0]!.split(/[,;]/)) add(accept(part), "mailto", where);
  }
  for (const node of jsonLdNodes(digest.jsonLd)) for (const value of stringsOf(node.email)) add(accept(value), "jsonld");
  for (const item of digest.microdata) add(accept(item.value), "jsonld", { block: item.block, offset: 0, end: 0 });
  for (const item of digest.cfemails) {
    const email = decodeCfEmail(item.hex);
    add(email === undefined ? undefined : accept(email), "cfemail", { block: item.block, offset: 0, end: 0 });
  }
  digest.blocks.forEach((block, index) => {
    if (found.size >= MAX_PER_PAGE) return;
    if (block.text.includes("@")) {
      for (const hit of scanAddresses(block.text, block.boundaries, accept)) add(hit.email, "text", { block: index, offset: hit.start, end: hit.end });
    }
    for (const variant of deobfuscated(block.text)) {
      for (const hit of scanAddresses(variant, [], accept)) {
        const local = hit.email.slice(0, hit.email.lastIndexOf("@"));
        if (SENTENCE_WORDS.test(local)) continue;
        // Offsets shift after replacements; the block still gives the context.
        add(hit.email, "obfuscated", { block: index, offset: Math.min(hit.start, block.text.length), end: Math.min(hit.end, block.text.length) });
      }
    }
  });
  for (const script of digest.scripts) {
    if (found.size >= MAX_PER_PAGE) break;
    const text = unescapeScript(script);
    if (text.includes("@")) for (const hit of scanAddresses(text, [], accept, 50)) add(hit.email, "script");
  }
  return [...found.values()];
}
