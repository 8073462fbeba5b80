/**
 * Finding address-shaped strings in text in linear time, whatever the text is (2 MiB of one
 * character, of dots, of `@`s). No regular expression runs over the text looking for
 * addresses: each `@` is found with indexOf and the local part and domain are read
 * outwards from it, at most 64 and 253 characters. A scan stops at the previous or next
 * `@`, so every character is read a bounded number of times.
 */

export interface AddressMatch {
  /** `local@domain` as found (not yet validated). */
  raw: string;
  start: number;
  end: number;
}

const LOCAL_MAX = 64;
const DOMAIN_MAX = 253;

function isLocalChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2e || code === 0x5f || code === 0x25 || code === 0x2b || code === 0x2d || code === 0x27 // . _ % + - '
  );
}

const LETTER = /\p{L}|\p{N}/u;
function isDomainChar(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x2d;
  // Internationalised domain names (bäckerei-müller.de): letters of any script.
  return LETTER.test(text[i]!);
}

/**
 * Every `local@domain` shape in `text`. `boundaries` are offsets where one HTML element
 * ended and the next began: a local part that starts before such an offset and continues
 * after it is cut there ("Mail" + "info@…" is "info@…"), and a domain that runs on past one
 * is tried cut there first ("info@shop.de" + "Tel" is "info@shop.de"). `accept` decides
 * which cut is a real address (the first that passes wins, the uncut shape last).
 */
export function scanAddresses(text: string, boundaries: readonly number[], accept: (raw: string) => string | undefined, limit = 500): Array<AddressMatch & { email: string }> {
  const out: Array<AddressMatch & { email: string }> = [];
  let from = 0;
  while (out.length < limit) {
    const at = text.indexOf("@", from);
    if (at < 0) break;
    from = at + 1;
    let start = at;
    while (start > 0 && at - start < LOCAL_MAX && isLocalChar(text.charCodeAt(start - 1))) start--;
    if (start === at) continue;
    let end = at + 1;
    while (end < text.length && end - at <= DOMAIN_MAX && isDomainChar(text, end)) end++;
    if (end === at + 1) continue;
    const hit = bestCut(text, start, at, end, boundaries, accept);
    if (hit) out.push(hit);
  }
  return out;
}

function bestCut(text: string, start: number, at: number, end: number, boundaries: readonly number[], accept: (raw: string) => string | undefined) {
  const starts: number[] = [];
  const ends: number[] = [];
  if (boundaries.length) {
    // The last boundary inside the local part, the boundaries inside the domain in order.
    for (const b of boundaries) {
      if (b > start && b < at) starts[0] = b;
      else if (b > at + 1 && b < end) ends.push(b);
    }
  }
  starts.push(start);
  ends.push(end);
  // Cut where the domain's last label runs into a capitalised word ("shop.deTelefon").
  const domain = text.slice(at + 1, end);
  const glued = /\.[a-z]{2,6}(?=[A-Z][a-z])/.exec(domain);
  if (glued) ends.splice(ends.length - 1, 0, at + 1 + glued.index + glued[0].length);
  for (const s of starts) {
    for (const e of ends) {
      const raw = text.slice(s, e);
      const email = accept(raw);
      if (email) return { raw, start: s, end: e, email };
    }
  }
  return undefined;
}
