import { describe, expect, it } from "vitest";
import { isAtOrBelow, normaliseDomain, organisationalDomain } from "../../src/core/domain-name.js";

describe("normaliseDomain", () => {
  it.each([
    ["Example.COM", "example.com"],
    [" example.com. ", "example.com"],
    ["Bücher.de", "xn--bcher-kva.de"],
    ["MAIL.example.co.uk", "mail.example.co.uk"],
    ["xn--bcher-kva.de", "xn--bcher-kva.de"],
  ])("turns %j into %j", (raw, expected) => {
    expect(normaliseDomain(raw)).toEqual({ ok: true, domain: expected });
  });

  it.each([
    ["", /must not be empty/],
    ["10.0.0.1", /not an IP address/],
    ["::1", /not an IP address/],
    ["[::1]", /not an IP address/],
    ["1.2.3.4.", /not an IP address/],
    ["intranet", /at least two labels/],
    ["co.uk", /public suffix \(co\.uk\)/],
    ["com", /at least two labels/],
    ["blogspot.com", /public suffix/],
    ["a..b.com", /not a valid domain name/],
    ["-bad.com", /not a valid domain name/],
    ["user@example.com", /bare domain name/],
    ["example.com:25", /bare domain name/],
    [`${"a".repeat(64)}.com`, /not a valid domain name/],
    [`${"abcdefghi.".repeat(26)}com`, /at most 253 characters/],
  ])("refuses %j", (raw, reason) => {
    const result = normaliseDomain(raw);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });
});

describe("organisationalDomain and isAtOrBelow", () => {
  it("finds the registrable domain with the Public Suffix List", () => {
    expect(organisationalDomain("mail.example.co.uk")).toBe("example.co.uk");
    expect(organisationalDomain("a.b.example.com")).toBe("example.com");
    expect(organisationalDomain("example.com")).toBe("example.com");
  });

  it("accepts the domain itself and names below it, not look-alikes", () => {
    expect(isAtOrBelow("example.com", "example.com")).toBe(true);
    expect(isAtOrBelow("mail.example.com", "example.com")).toBe(true);
    expect(isAtOrBelow("notexample.com", "example.com")).toBe(false);
    expect(isAtOrBelow("example.com.evil.net", "example.com")).toBe(false);
  });
});
