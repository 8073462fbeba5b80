import { describe, expect, it } from "vitest";
import { emailGramHashes, gramHash, GramHashCache, gramsOf } from "../../src/core/blind-index.js";
import { Keyring, keyIdOf } from "../../src/core/crypto.js";

function keyring(fill: number): Keyring {
  const key = Buffer.alloc(32, fill);
  return new Keyring([{ id: keyIdOf(key), key, createdAt: "2026-01-01T00:00:00.000Z" }], keyIdOf(key));
}

describe("blind grams", () => {
  it("cuts grams by code point, the same with and without characters outside the BMP", () => {
    expect(gramsOf("abcd@x")).toEqual(["abc", "bcd", "cd@", "d@x"]);
    expect(gramsOf("aaaa", 3)).toEqual(["aaa"]);
    expect(gramsOf("a😀b@c", 3)).toEqual(["a😀b", "😀b@", "b@c"]);
    expect(gramsOf("ab", 3)).toEqual([]);
  });

  it("gives the same hashes through the cache as without it, per key and workspace", () => {
    const cache = new GramHashCache(5);
    const one = keyring(1);
    const two = keyring(2);
    for (const ring of [one, two, one]) {
      for (const team of ["team_a", "team_b"]) {
        expect(emailGramHashes(ring, team, "Info@Praxis.li", undefined, 5, 3, cache)).toEqual(emailGramHashes(ring, team, "Info@Praxis.li"));
      }
    }
    // The same gram differs across workspaces and keys.
    expect(new Set([gramHash(one, "team_a", "inf"), gramHash(one, "team_b", "inf"), gramHash(two, "team_a", "inf")]).size).toBe(3);
  });
});
