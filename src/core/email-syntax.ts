import { domainToASCII } from "node:url";

/** An address split and checked: the domain in its ASCII (punycode) form, for DNS and SMTP. */
export type EmailSyntax = { ok: true; local: string; domain: string; asciiDomain: string } | { ok: false; reason: string };

// RFC 5322 atext, widened by RFC 6531 to any non-ASCII UTF-8 character.
const ATEXT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\u{10FFFF}]+$/u;
// RFC 5321 qtextSMTP (printable ASCII but " and \) or a quoted-pairSMTP; RFC 6531 adds UTF-8.
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\u{10FFFF}]|\\[\x20-\x7e])*"$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const utf8Length = (s: string) => Buffer.byteLength(s, "utf8");

/**
 * RFC 5321 (§4.1.2 syntax, §4.5.3.1 lengths) with RFC 6531's internationalised addresses:
 * a dot-atom or quoted local part of at most 64 octets, a domain of host-name labels (an
 * IDN domain through its punycode form, checked by `domainToASCII`), at most 254 octets in
 * all. Address literals (`user@[192.0.2.1]`) are refused: no real business mailbox uses one.
 */
export function checkEmailSyntax(address: string): EmailSyntax {
  if (address !== address.trim() || address.length === 0) return { ok: false, reason: "the address is empty or has spaces around it" };
  if (/\p{Cc}/u.test(address)) return { ok: false, reason: "the address contains control characters" };
  const at = address.lastIndexOf("@");
  if (at < 0) return { ok: false, reason: "the address has no @" };
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length === 0) return { ok: false, reason: "the part before @ is empty" };
  if (domain.length === 0) return { ok: false, reason: "the domain after @ is empty" };
  if (utf8Length(local) > 64) return { ok: false, reason: "the part before @ is longer than 64 octets (RFC 5321 §4.5.3.1.1)" };
  if (local.startsWith('"')) {
    if (!QUOTED.test(local)) return { ok: false, reason: "the quoted part before @ is not a valid quoted string" };
  } else {
    if (local.includes("@")) return { ok: false, reason: "the address has more than one @ (a local part with @ must be quoted)" };
    const atoms = local.split(".");
    if (atoms.some((a) => a === "")) return { ok: false, reason: "the part before @ starts or ends with a dot or has two dots in a row" };
    const bad = atoms.find((a) => !ATEXT.test(a));
    if (bad !== undefined) return { ok: false, reason: `the part before @ contains a character not allowed unquoted (${JSON.stringify(bad)})` };
  }
  if (domain.startsWith("[")) return { ok: false, reason: "address literals such as [192.0.2.1] are not accepted" };
  const asciiDomain = domainToASCII(domain.toLowerCase().replace(/\.$/, ""));
  if (!asciiDomain) return { ok: false, reason: `the domain ${JSON.stringify(domain)} is not a valid (internationalised) domain name` };
  if (asciiDomain.length > 253) return { ok: false, reason: "the domain is longer than 253 characters" };
  const labels = asciiDomain.split(".");
  if (labels.length < 2) return { ok: false, reason: `the domain ${JSON.stringify(domain)} has no dot (a top-level domain alone does not receive mail)` };
  const badLabel = labels.find((l) => !LABEL.test(l));
  if (badLabel !== undefined) return { ok: false, reason: `the domain label ${JSON.stringify(badLabel)} is not a host name label (letters, digits, hyphens, at most 63)` };
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return { ok: false, reason: "the top-level domain is all digits" };
  if (utf8Length(local) + 1 + asciiDomain.length > 254) return { ok: false, reason: "the address is longer than 254 octets" };
  return { ok: true, local, domain, asciiDomain };
}

/**
 * Role (shared) mailboxes: information only. For a local business info@ or office@ is usually
 * the right inbox, so it never changes the status (as Kickbox and ZeroBounce report it: a flag).
 */
const ROLES = new Set([
  "info", "office", "contact", "kontakt", "hello", "hallo", "mail", "email", "post", "admin", "administrator", "support", "help",
  "sales", "vertrieb", "service", "team", "enquiries", "inquiries", "booking", "bookings", "reservation", "reservations",
  "reception", "empfang", "billing", "accounts", "accounting", "buchhaltung", "finance", "marketing", "press", "presse", "media",
  "jobs", "careers", "karriere", "hr", "webmaster", "postmaster", "hostmaster", "abuse", "noreply", "no-reply", "bureau", "buero",
  "büro", "contacto", "info-de", "welcome", "shop", "orders", "order", "bestellung", "praxis", "kanzlei", "secretariat", "sekretariat",
]);

export function isRoleAddress(local: string): boolean {
  const base = local.toLowerCase().replace(/^"|"$/g, "").split("+")[0]!;
  return ROLES.has(base);
}
