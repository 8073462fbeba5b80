import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { getDomain, getPublicSuffix } from "tldts";

/**
 * Sending-domain names as users type them (`Bücher.DE.`, ` Example.com `) turned into the
 * one form DNS answers and uniqueness checks can compare: lower case, IDN as punycode,
 * no trailing dot. Returns the reason instead of throwing so callers can name the field.
 */
export type DomainCheck = { ok: true; domain: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

// The full Public Suffix List, private section included: nobody can own `github.io` or
// `co.uk` as a sending domain, and DMARC's organisational domain uses the same list.
const PSL = { allowPrivateDomains: true } as const;

export function normaliseDomain(raw: string): DomainCheck {
  let value = raw.trim();
  if (value === "") return { ok: false, reason: "must not be empty" };
  if (value.endsWith(".")) value = value.slice(0, -1);
  const unbracketed = value.replace(/^\[(.*)\]$/, "$1");
  if (isIP(unbracketed)) return { ok: false, reason: "must be a domain name, not an IP address" };
  if (/[/:@?#\s]/.test(value)) return { ok: false, reason: "must be a bare domain name (no scheme, path, port, @ or spaces)" };
  const ascii = domainToASCII(value.toLowerCase());
  if (!ascii) return { ok: false, reason: "is not a valid domain name" };
  if (ascii.length > 253) return { ok: false, reason: "must be at most 253 characters long once encoded" };
  const labels = ascii.split(".");
  if (labels.length < 2) return { ok: false, reason: "must have at least two labels (e.g. example.com), not a single name" };
  if (!labels.every((l) => LABEL.test(l))) {
    return { ok: false, reason: "is not a valid domain name (labels are 1-63 letters, digits or inner hyphens)" };
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) return { ok: false, reason: "must be a domain name, not an IP address" };
  if (getPublicSuffix(ascii, PSL) === ascii) {
    return { ok: false, reason: `is a public suffix (${ascii}): use a domain registered under it, e.g. yourcompany.${ascii}` };
  }
  return { ok: true, domain: ascii };
}

/** The organisational domain (RFC 7489 §3.2) of a normalised domain: where DMARC falls back to. */
export function organisationalDomain(domain: string): string {
  return getDomain(domain, PSL) ?? domain;
}

/** `host` is `domain` or a name below it (both normalised). */
export function isAtOrBelow(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}
