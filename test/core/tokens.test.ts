import { describe, expect, it } from "vitest";
import { hashToken, issueToken, parseToken } from "../../src/core/tokens.js";

describe("token format", () => {
  it("issues prefixed tokens with 30 random base62 characters and a checksum", () => {
    const pat = issueToken("pat");
    expect(pat.raw).toMatch(/^otr_pat_[0-9A-Za-z]{36}$/);
    expect(issueToken("key").raw).toMatch(/^otr_key_[0-9A-Za-z]{36}$/);
    expect(pat.displayPrefix).toBe(pat.raw.slice(0, 12));
    expect(parseToken(pat.raw)).toBe("pat");
  });

  it("stores only a SHA-256 hash, never the raw token", () => {
    const token = issueToken("pat");
    expect(token.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(token.hash).toBe(hashToken(token.raw));
    expect(token.hash).not.toContain(token.raw.slice(8));
  });

  it("never issues the same token twice", () => {
    const seen = new Set(Array.from({ length: 2000 }, () => issueToken("pat").raw));
    expect(seen.size).toBe(2000);
  });

  it("refuses a token whose checksum does not match", () => {
    const raw = issueToken("pat").raw;
    const i = 10;
    const flipped = raw.slice(0, i) + (raw[i] === "a" ? "b" : "a") + raw.slice(i + 1);
    expect(parseToken(flipped)).toBeNull();
    expect(parseToken(raw.slice(0, -1) + (raw.endsWith("0") ? "1" : "0"))).toBeNull();
  });

  it("refuses wrong prefixes, lengths and alphabets", () => {
    const raw = issueToken("pat").raw;
    expect(parseToken(raw.replace("otr_pat_", "otr_xyz_"))).toBeNull();
    expect(parseToken(raw + "a")).toBeNull();
    expect(parseToken(raw.slice(0, -2))).toBeNull();
    expect(parseToken(raw.slice(0, 20) + "-" + raw.slice(21))).toBeNull();
    expect(parseToken("")).toBeNull();
    expect(parseToken("ghp_abcdef")).toBeNull();
  });

  it("a personal token's body is not valid as a team key (the prefix is in the checksum)", () => {
    const raw = issueToken("pat").raw;
    expect(parseToken(raw.replace("otr_pat_", "otr_key_"))).toBeNull();
  });
});
