import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` characters drawn uniformly from base62 (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Base62 of a non-negative integer, left-padded with zeros to `width`. */
export function toBase62(value: number, width: number): string {
  let n = Math.floor(value);
  let out = "";
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, "0");
}

export type IdPrefix = "usr" | "team" | "tok" | "ct" | "cmp" | "exe" | "dom" | "key" | "imp" | "srch" | "rt" | "sup" | "req" | "rpl" | "opn";

/**
 * Opaque, prefixed identifiers (`ct_…`, `team_…`): 16 base62 characters (≈95 bits) are
 * unguessable enough that an ID is never an existence oracle, and never sequential.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(16)}`;
}
