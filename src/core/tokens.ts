import { createHash, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";
import { randomBase62, toBase62 } from "./ids.js";

/**
 * Bearer tokens, in the style of GitHub's `ghp_…`: a kind prefix, 30 random base62
 * characters (≈178 bits) and a 6-character base62 CRC32 checksum. The checksum lets
 * the server refuse a mistyped or made-up token before any database lookup, and lets
 * secret scanners recognise a leaked one. Only the SHA-256 hash is ever stored.
 *
 * Personal access tokens and team API keys share this code; the prefix tells them apart.
 */
export type TokenKind = "pat" | "key";

const PREFIX: Record<TokenKind, string> = { pat: "otr_pat_", key: "otr_key_" };
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const BODY = /^[0-9A-Za-z]+$/;

export interface IssuedToken {
  /** The raw token: shown once, never stored. */
  raw: string;
  /** SHA-256 hex of the raw token: what the database keeps. */
  hash: string;
  /** A short, non-secret prefix to recognise the token in lists (`otr_key_Ab12`). */
  displayPrefix: string;
}

function checksum(kind: TokenKind, random: string): string {
  return toBase62(crc32(PREFIX[kind] + random), CHECKSUM_LENGTH);
}

export function hashToken(raw: string): string {
  return createHash("sha256").update(raw, "utf8").digest("hex");
}

export function issueToken(kind: TokenKind): IssuedToken {
  const random = randomBase62(RANDOM_LENGTH);
  const raw = PREFIX[kind] + random + checksum(kind, random);
  return { raw, hash: hashToken(raw), displayPrefix: displayPrefix(raw) };
}

/** The non-secret start of a token as lists show it (`otr_pat_Ab12`): its kind prefix and 4 characters. */
export function displayPrefix(raw: string): string {
  const kindPrefix = Object.values(PREFIX).find((p) => raw.startsWith(p)) ?? "";
  return raw.slice(0, kindPrefix.length + 4);
}

/** The token's kind when its shape and checksum are right, otherwise null (no lookup needed). */
export function parseToken(raw: string): TokenKind | null {
  for (const kind of Object.keys(PREFIX) as TokenKind[]) {
    const prefix = PREFIX[kind];
    if (!raw.startsWith(prefix)) continue;
    const body = raw.slice(prefix.length);
    if (body.length !== RANDOM_LENGTH + CHECKSUM_LENGTH || !BODY.test(body)) return null;
    const expected = Buffer.from(checksum(kind, body.slice(0, RANDOM_LENGTH)));
    const given = Buffer.from(body.slice(RANDOM_LENGTH));
    return timingSafeEqual(expected, given) ? kind : null;
  }
  return null;
}
