import { parse as parseDomain } from "tldts";
import type { Socials } from "../../../core/schemas/lead.js";
import type { EmailSource, FoundEmail } from "./emails.js";
import type { Cue } from "./ownership.js";
import type { FoundSocial, SocialNetwork } from "./socials.js";
import { DEPARTMENT_INBOX, fold, ROLE_INBOX, SIDE_MAILBOX } from "./vocabulary.js";

/**
 * Who the site is: its registrable domains, the business's name and owners' names as the
 * site and the lead state them, and the domains the site credits for its making. Every
 * address and profile is judged against it.
 */
export interface SiteIdentity {
  domains: ReadonlySet<string>;
  names: readonly string[];
  owners: readonly string[];
  creditDomains: ReadonlySet<string>;
}

const FREEMAIL = new Set([
  // international
  "gmail.com", "googlemail.com", "aol.com", "aol.de", "aol.fr", "icloud.com", "me.com", "mac.com", "msn.com", "proton.me", "protonmail.com",
  "protonmail.ch", "pm.me", "zoho.com", "zohomail.eu", "mail.com", "fastmail.com", "fastmail.fm", "hey.com", "tutanota.com", "tutanota.de",
  "tuta.io", "mail.ru", "inbox.ru", "list.ru", "bk.ru", "yandex.ru", "ya.ru",
  // German-speaking
  "web.de", "t-online.de", "freenet.de", "arcor.de", "posteo.de", "posteo.net", "mailbox.org", "online.de", "1und1.de", "vodafonemail.de",
  "kabelmail.de", "unitybox.de", "ewe.net", "osnanet.de", "netcologne.de", "htp-tel.de", "versanet.de", "o2online.de", "alice-dsl.net",
  "alice-dsl.de", "kabelbw.de", "nexgo.de", "email.de", "aon.at", "chello.at", "utanet.at", "a1.net", "bluewin.ch", "hispeed.ch",
  "sunrise.ch", "gmx.de", "gmx.net", "gmx.at", "gmx.ch",
  // French
  "orange.fr", "wanadoo.fr", "free.fr", "sfr.fr", "neuf.fr", "laposte.net", "club-internet.fr", "bbox.fr", "numericable.fr", "aliceadsl.fr",
  "voila.fr", "cegetel.net", "noos.fr",
  // Italian
  "libero.it", "virgilio.it", "tiscali.it", "alice.it", "tin.it", "fastwebnet.it", "email.it", "inwind.it", "iol.it", "tim.it", "katamail.com",
  // Spanish and Portuguese
  "telefonica.net", "movistar.es", "terra.es", "ono.com", "sapo.pt", "clix.pt", "netcabo.pt", "uol.com.br", "bol.com.br", "terra.com.br",
  // Finnish
  "suomi24.fi", "luukku.com", "kolumbus.fi", "elisanet.fi", "saunalahti.fi", "pp.inet.fi", "dnainternet.net", "netti.fi", "welho.com", "kotiposti.net",
  // Hungarian
  "freemail.hu", "citromail.hu", "t-online.hu", "upcmail.hu", "chello.hu", "invitel.hu", "vipmail.hu", "indamail.hu", "gmail.hu",
  // UK and Benelux
  "btinternet.com", "sky.com", "talktalk.net", "virginmedia.com", "ntlworld.com", "blueyonder.co.uk", "tiscali.co.uk", "ziggo.nl", "kpnmail.nl",
  "home.nl", "planet.nl", "xs4all.nl", "hetnet.nl", "telenet.be", "skynet.be", "proximus.be",
  // Central and Eastern Europe
  "seznam.cz", "centrum.cz", "email.cz", "wp.pl", "o2.pl", "interia.pl", "onet.pl", "op.pl", "abv.bg",
]);
const FREEMAIL_BRANDS = /^(yahoo|ymail|rocketmail|hotmail|outlook|live|windowslive|gmx|yandex|libero)$/;

export function isFreemail(domain: string): boolean {
  const parsed = parseDomain(domain);
  return FREEMAIL.has(parsed.domain ?? domain) || FREEMAIL_BRANDS.test(parsed.domainWithoutSuffix ?? "");
}

/** Italian certified mail (PEC) providers: such boxes refuse ordinary mail. */
const PEC_DOMAIN = /(?:^|[.-])pec(?:[.-]|$)|^(?:aruba|giga|my|casella|register|cert|open|pec)pec\.|pecimprese|legalmail|postecert|sicurezzapostale|pec-mail|mailcert|cgn\.legalmail|postacertificata|actaliscertymail|cert\.[a-z-]+\.it$/;

export function isPecDomain(domain: string): boolean {
  return PEC_DOMAIN.test(domain.toLowerCase());
}

/** Words in business names that say nothing about which business it is. */
const GENERIC_NAME_WORDS = new Set([
  "gmbh", "mbh", "kg", "ag", "ug", "ohg", "gbr", "ek", "e k", "ltd", "llc", "inc", "plc", "srl", "srls", "spa", "sas", "snc", "sarl", "eurl", "sa", "sl",
  "slu", "oy", "oyj", "ab", "kft", "bt", "zrt", "nyrt", "co", "und", "and", "the", "der", "die", "das", "von", "van", "del", "della", "des", "les",
  "restaurant", "ristorante", "restaurante", "hotel", "cafe", "caffe", "bar", "pizzeria", "trattoria", "osteria", "baeckerei", "backerei",
  "bakery", "boulangerie", "panificio", "praxis", "studio", "salon", "shop", "home", "startseite", "willkommen", "welcome", "official",
  "website", "homepage", "webseite", "accueil", "benvenuti", "bienvenidos", "tervetuloa", "kezdolap", "fodrasz", "friseur", "coiffure",
  "parrucchiere", "zahnarzt", "dentist", "dentiste", "dentista", "hammaslaakari", "fogorvos", "kontakt", "contact", "impressum", "imprint",
  "page", "site", "online", "services", "service", "team", "family", "famille", "famiglia", "familie", "haus", "casa", "maison",
]);

/** Tokens of a name for matching inside addresses: folded, umlaut spellings unified, generic words dropped. */
export function nameTokens(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const name of names) {
    for (const word of fold(name).split(/[^a-z0-9]+/)) {
      if (word.length >= 4 && !GENERIC_NAME_WORDS.has(word) && !/^\d+$/.test(word)) out.add(squash(word));
    }
  }
  return [...out];
}

/** "müller", "mueller", "muller" → "muller": German umlauts are spelled both ways in addresses. */
function squash(text: string): string {
  return text.replace(/ae/g, "a").replace(/oe/g, "o").replace(/ue/g, "u").replace(/ss/g, "s");
}

function mentions(value: string, tokens: readonly string[]): boolean {
  if (!tokens.length) return false;
  const key = squash(fold(value).replace(/[^a-z0-9]/g, ""));
  return tokens.some((t) => key.includes(t));
}

/** An address found on one or more pages of a site. */
export interface SiteEmail {
  email: string;
  source: EmailSource;
  pageUrl: string;
  cues: Cue[];
  pages: number;
  /** Found on a contact or imprint page. */
  onContactPage: boolean;
  /** Order of discovery (ties go to the first). */
  order: number;
}

const SOURCE_TRUST: Record<EmailSource, number> = { mailto: 5, jsonld: 4, cfemail: 4, text: 3, obfuscated: 3, script: 0 };
const STRENGTH: Record<Cue["where"], number> = { same: 3, after: 3, previous: 2, section: 1 };

/** The strongest third-party cue, unless an owner cue is at least as strong. */
function governingCue(cues: readonly Cue[]): Cue["kind"] | undefined {
  let owner = 0;
  let third: Cue | undefined;
  for (const cue of cues) {
    const s = STRENGTH[cue.where];
    if (cue.kind === "owner") owner = Math.max(owner, s);
    else if (!third || s > STRENGTH[third.where]) third = cue;
  }
  if (third && STRENGTH[third.where] > owner) return third.kind;
  return owner > 0 ? "owner" : undefined;
}

/**
 * The score of an address as the business's general inbox, or undefined when it is
 * certainly not the business's (a web agency's, a PEC box, an outside data-protection
 * officer's, a chamber's, a jobs mailbox on another domain).
 *
 * Who it belongs to comes first: the site's own domain; then a domain or freemail box that
 * carries the business's or owner's name; then any freemail box (the owner's inbox on
 * `t-online.de` or `libero.it` is a real inbox, and beats a stranger's domain); other
 * domains only with evidence (a name, an owner cue, a mailto on the contact page).
 */
export function scoreEmail(email: SiteEmail, identity: SiteIdentity): number | undefined {
  const at = email.email.lastIndexOf("@");
  const local = email.email.slice(0, at);
  const domain = email.email.slice(at + 1);
  const registrable = parseDomain(domain, { allowPrivateDomains: true }).domain ?? domain;
  const icannRegistrable = parseDomain(domain).domain ?? domain;
  const own = identity.domains.has(registrable) || identity.domains.has(icannRegistrable);
  const nameTokensOfSite = nameTokens(identity.names);
  const ownerTokens = nameTokens(identity.owners);
  const label = parseDomain(domain).domainWithoutSuffix ?? "";
  const sameLabel = [...identity.domains].some((d) => (parseDomain(d).domainWithoutSuffix ?? d) === label);
  const named = !own && (sameLabel || mentions(label, nameTokensOfSite));
  const freemail = isFreemail(domain);
  const cue = governingCue(email.cues);

  // Certified mail (PEC) often refuses ordinary mail: only when the business gives nothing else.
  if (isPecDomain(domain) || cue === "pec") return 1 + SOURCE_TRUST[email.source];
  if (!own && identity.creditDomains.has(icannRegistrable)) return undefined;
  if (!own && (cue === "credit" || cue === "authority")) {
    // Agencies rarely use freemail: a freemail box needs the cue right beside it.
    const strong = email.cues.some((c) => (c.kind === "credit" || c.kind === "authority") && (c.where === "same" || c.where === "after"));
    if (!freemail || strong) return undefined;
  }
  const side = SIDE_MAILBOX.test(local) || cue === "jobs" || cue === "privacy";
  if (side && !own) return undefined;

  let score: number;
  if (own) score = 100;
  else if (named) score = 90;
  else if (freemail) score = 60 + (mentions(local, nameTokensOfSite) || mentions(local, ownerTokens) ? 15 : 0);
  else if (cue === "owner" || (email.onContactPage && email.source === "mailto")) score = 40;
  else return undefined;

  if (side) score -= 70;
  // The general inbox first, then a department's (bookings, sales, the shop), then a person's.
  if (ROLE_INBOX.test(local)) score += 20;
  else if (DEPARTMENT_INBOX.test(local)) score += 8;
  else if (mentions(local, ownerTokens)) score += 5;
  if (email.source === "script" && !own) score -= 20;
  score += SOURCE_TRUST[email.source];
  score += Math.min(3, email.pages - 1);
  if (email.onContactPage) score += 3;
  if (cue === "owner") score += 3;
  return score;
}

/** Addresses ranked as the business's general inbox, best first; those certainly not the business's are left out. */
export function rankEmails(emails: readonly SiteEmail[], identity: SiteIdentity): Array<SiteEmail & { score: number }> {
  return emails
    .map((e) => ({ ...e, score: scoreEmail(e, identity) }))
    .filter((e): e is SiteEmail & { score: number } => e.score !== undefined)
    .sort((a, b) => b.score - a.score || a.order - b.order);
}

/** Merge per-page findings into per-site addresses. */
export function mergeEmails(pages: ReadonlyArray<{ emails: readonly FoundEmail[]; contactPage: boolean }>): SiteEmail[] {
  const byKey = new Map<string, SiteEmail>();
  let order = 0;
  for (const page of pages) {
    const seenHere = new Set<string>();
    for (const found of page.emails) {
      const key = found.email.toLowerCase();
      let entry = byKey.get(key);
      if (!entry) {
        entry = { email: found.email, source: found.source, pageUrl: found.pageUrl, cues: [], pages: 0, onContactPage: false, order: order++ };
        byKey.set(key, entry);
      } else if (SOURCE_TRUST[found.source] > SOURCE_TRUST[entry.source]) {
        entry.source = found.source;
      }
      if (found.cue) entry.cues.push(found.cue);
      if (!seenHere.has(key)) entry.pages++;
      seenHere.add(key);
      if (page.contactPage && !entry.onContactPage) {
        entry.onContactPage = true;
        entry.pageUrl = found.pageUrl;
      }
    }
  }
  return [...byKey.values()];
}

/**
 * The business's own profile per network: the site's JSON-LD `sameAs` claim and embedded
 * page plugins first, then links, preferring a handle that carries the business's name;
 * profiles credited to the web agency (by the words around them or by the agency's
 * domain in the handle) are left out.
 */
export function chooseSocials(socials: readonly FoundSocial[], identity: SiteIdentity): Socials {
  const tokens = nameTokens(identity.names);
  const domainLabels = [...identity.domains].map((d) => parseDomain(d).domainWithoutSuffix ?? d).map((l) => squash(fold(l).replace(/[^a-z0-9]/g, ""))).filter((l) => l.length >= 4);
  const creditLabels = [...identity.creditDomains].map((d) => squash(fold(parseDomain(d).domainWithoutSuffix ?? d).replace(/[^a-z0-9]/g, ""))).filter((l) => l.length >= 4);
  const best = new Map<SocialNetwork, { url: string; score: number; order: number }>();
  const counts = new Map<string, number>();
  for (const s of socials) counts.set(s.url, (counts.get(s.url) ?? 0) + 1);
  socials.forEach((social, order) => {
    const handle = squash(fold(social.url.replace(/^https:\/\/[^/]+\//, "")).replace(/[^a-z0-9]/g, ""));
    if (creditLabels.some((l) => handle.includes(l))) return;
    const cue = social.cue && social.cue.kind !== "owner" && social.cue.where !== "section" ? social.cue.kind : undefined;
    if (social.source === "link" && (cue === "credit" || cue === "authority" || cue === "jobs")) return;
    let score = social.source === "jsonld" ? 30 : social.source === "embed" ? 25 : 10;
    if (tokens.some((t) => handle.includes(t)) || domainLabels.some((l) => handle.includes(l))) score += 20;
    if (social.network === "linkedin") score += social.url.includes("/in/") ? -5 : 5;
    score += Math.min(3, (counts.get(social.url) ?? 1) - 1) * 2;
    const current = best.get(social.network);
    if (!current || score > current.score) best.set(social.network, { url: social.url, score, order });
  });
  const out: Socials = {};
  for (const [network, { url }] of best) out[network] = url;
  return out;
}
