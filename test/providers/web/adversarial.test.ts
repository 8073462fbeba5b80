import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain JS module without types
import { HOSTILE_PAGES } from "../../../bench/fixtures/hostile-pages.js";
import { decodeBody } from "../../../src/providers/web/charset.js";
import { scanAddresses } from "../../../src/providers/web/extract/address-scan.js";
import { cleanEmail } from "../../../src/providers/web/extract/emails.js";
import { extractPage } from "../../../src/providers/web/extract/page-facts.js";
import { plainText } from "../../../src/providers/web/extract/plain-text.js";
import { RobotsRules } from "../../../src/providers/web/robots.js";

/**
 * Extraction is linear in the page size: every regular expression that sees page text is
 * bounded (no nested unbounded quantifiers), addresses are found by indexOf and bounded
 * scans, and htmlparser2 is fed in chunks. These inputs made the previous extractor (or
 * would make a naive one) backtrack for seconds to minutes; each must simply finish (the
 * suite's 30 s timeout is the only clock) and give a sane answer.
 */
const MiB = 1024 * 1024;
const bodyOf = (kind: string): Buffer => {
  let body: Buffer | undefined;
  (HOSTILE_PAGES as Record<string, (req: unknown, res: unknown) => void>)[kind]!({ on: () => undefined }, { writeHead: () => undefined, end: (b: Buffer) => (body = b) });
  return kind === "gzip-bomb" ? gunzipSync(body!).subarray(0, 2 * MiB) : body!;
};

describe("2 MiB adversarial pages through the whole extraction", () => {
  const kinds = Object.keys(HOSTILE_PAGES as object).filter((k) => k !== "endless" && k !== "slow-drip");
  it.each(kinds)("%s", (kind) => {
    const body = bodyOf(kind);
    expect(body.length).toBeGreaterThanOrEqual(2 * MiB - 16);
    const facts = extractPage(body, "text/html", `http://${kind}.de/`);
    expect(facts.emails.length).toBeLessThanOrEqual(200);
    expect(facts.links.length).toBeLessThanOrEqual(600);
    if (kind === "address-runs") expect(facts.emails.map((e) => e.email)).toEqual(["a1@shop.de", "b2@shop.de"]);
    if (kind === "obfuscation-runs") expect(facts.emails.every((e) => e.email.endsWith("@shop.info"))).toBe(true);
    if (!["address-runs", "obfuscation-runs"].includes(kind)) expect(facts.emails).toEqual([]);
  });
});

describe("each text pass on 2 MiB runs of what it looks for", () => {
  const runs = ["a", ".", "@", "<", "[", " ", "a.", "a@", "@a", "a-", "[at]", " at ", " dot ", "(", "<a", "\\u0040"].map((unit) => [unit, unit.repeat(Math.ceil((2 * MiB) / unit.length))] as const);

  it.each(runs)("scanAddresses on %j", (_unit, text) => {
    expect(scanAddresses(text, [], cleanEmail)).toEqual([]);
  });

  it.each(runs)("plainText on %j", (_unit, text) => {
    expect(plainText(text, 1200).length).toBeLessThanOrEqual(1200);
  });

  it.each(runs)("a page of nothing but %j", (_unit, text) => {
    expect(extractPage(Buffer.from(text), "text/html", "http://x.de/").emails).toEqual([]);
  });

  it("cleanEmail on the longest shapes it can be given", () => {
    expect(cleanEmail(`${"a".repeat(64)}@${"b".repeat(190)}`)).toBeUndefined();
    expect(cleanEmail(`${"a.".repeat(32)}@${"b-".repeat(95)}`)).toBeUndefined();
  });

  it("charset sniffing of 2 MiB without a tag end", () => {
    expect(decodeBody(Buffer.from("<meta " + "x".repeat(2 * MiB)), undefined).charset).toBe("utf-8");
    expect(decodeBody(Buffer.alloc(2 * MiB, 0xe9), "text/html").charset).toBe("windows-1252");
  });

  it("robots.txt rules with many wildcards against long paths", () => {
    const rules = RobotsRules.parse(`User-agent: *\nDisallow: /${"*a".repeat(500)}$\nDisallow: /${"*".repeat(2000)}b*c\n`);
    expect(rules.isAllowed("outreach", `/${"a".repeat(5000)}x`)).toBe(true);
    expect(rules.isAllowed("outreach", `/${"a".repeat(5000)}`)).toBe(false);
    expect(rules.isAllowed("outreach", `/x${"b".repeat(3000)}c`)).toBe(false);
  });
});
