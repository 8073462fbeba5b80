import { describe, expect, it } from "vitest";
import { checkEmailSyntax, isRoleAddress } from "../../src/core/email-syntax.js";

describe("email syntax (RFC 5321/6531)", () => {
  it("accepts ordinary, internationalised, quoted and IDN addresses, giving the ASCII domain", () => {
    expect(checkEmailSyntax("anna.meier+news@example.com")).toEqual({ ok: true, local: "anna.meier+news", domain: "example.com", asciiDomain: "example.com" });
    expect(checkEmailSyntax("jörg@bäckerei-müller.de")).toMatchObject({ ok: true, local: "jörg", asciiDomain: "xn--bckerei-mller-bfb28a.de" });
    expect(checkEmailSyntax("用户@例子.广告")).toMatchObject({ ok: true, asciiDomain: "xn--fsqu00a.xn--4rr70v" });
    expect(checkEmailSyntax('"john smith"@example.com')).toMatchObject({ ok: true, local: '"john smith"' });
    expect(checkEmailSyntax('"a@b"@example.com')).toMatchObject({ ok: true, local: '"a@b"' });
    expect(checkEmailSyntax("Info@Example.COM.")).toMatchObject({ ok: true, asciiDomain: "example.com" });
  });

  it.each([
    ["", "empty"],
    ["no-at-sign.example.com", "has no @"],
    ["@example.com", "before @ is empty"],
    ["anna@", "after @ is empty"],
    [".anna@example.com", "starts or ends with a dot"],
    ["an..na@example.com", "two dots in a row"],
    ["an na@example.com", "not allowed unquoted"],
    ["a@b@example.com", "more than one @"],
    ['"unterminated@example.com', "not a valid quoted string"],
    [`${"x".repeat(65)}@example.com`, "longer than 64 octets"],
    [`${"ü".repeat(33)}@example.com`, "longer than 64 octets"],
    ["anna@localhost", "has no dot"],
    ["anna@-bad-.com", "not a host name label"],
    ["anna@exa_mple.com", "not a host name label"],
    [`anna@${"a".repeat(64)}.com`, "not a host name label"],
    ["anna@example.123", "not a valid (internationalised) domain name"],
    ["anna@[192.0.2.1]", "address literals"],
    [`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com`, "longer than 254"],
    ["anna@exam\u0000ple.com", "control characters"],
  ])("refuses %j with a clear reason (%s)", (address, reason) => {
    const result = checkEmailSyntax(address);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toContain(reason);
  });

  it("flags role addresses (information only)", () => {
    for (const local of ["info", "Office", "kontakt", "info+web", "buchhaltung"]) expect(isRoleAddress(local)).toBe(true);
    for (const local of ["anna", "information-desk", "jörg"]) expect(isRoleAddress(local)).toBe(false);
  });
});
