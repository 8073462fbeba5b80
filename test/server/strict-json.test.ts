import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parseStrictJson, StrictJsonError } from "../../src/server/strict-json.js";
import { seeded as random } from "../helpers/seeded-random.js";

const ALPHABET = ['a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', '\u0001', 'é', '€', '😀', '\ud800', '\u2028', '__proto__', 'constructor'];

function randomValue(rand: () => number, depth: number): unknown {
  const pick = rand();
  if (depth > 5 || pick < 0.35) {
    const kind = Math.floor(rand() * 6);
    if (kind === 0) return null;
    if (kind === 1) return rand() < 0.5;
    if (kind === 2) return Math.floor((rand() - 0.5) * 1e6);
    if (kind === 3) return (rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20);
    return Array.from({ length: Math.floor(rand() * 6) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join("");
  }
  if (pick < 0.65) return Array.from({ length: Math.floor(rand() * 5) }, () => randomValue(rand, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 5); i > 0; i--) {
    const key = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join("");
    Object.defineProperty(out, key, { value: randomValue(rand, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** JSON text with random (valid) whitespace between tokens. */
function spaced(text: string, rand: () => number): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c;
    if (inString) {
      if (c === "\\") out += text[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if ("{}[],:".includes(c) && rand() < 0.3) out += [" ", "\n", "\r\n", "\t"][Math.floor(rand() * 4)];
  }
  return out;
}

function failure(text: string): StrictJsonError {
  try {
    parseStrictJson(text);
  } catch (err) {
    if (err instanceof StrictJsonError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(text)}`);
}

describe("the strict JSON reader", () => {
  it("reads 2,000 random documents exactly as JSON.parse does", () => {
    const rand = random(18);
    for (let n = 0; n < 2000; n++) {
      const text = spaced(JSON.stringify(randomValue(rand, 0)), rand);
      expect(parseStrictJson(text), text).toEqual(JSON.parse(text));
    }
  });

  it("keeps __proto__ an ordinary key, as JSON.parse does", () => {
    const value = parseStrictJson('{"__proto__":{"admin":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("refuses everything JSON.parse refuses", () => {
    const bad = [
      "", " ", "{", "}", "[", "[1,]", "[,1]", "{,}", '{"a":1,}', '{"a" 1}', '{a:1}', "{'a':1}", '"abc', '"\\x"', '"\\u12"', '"\\u12G4"',
      '"a\u0000b"', '"line\nbreak"', "01", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "NaN", "Infinity", "tru", "nul", "True", "[1 2]",
      '{"a":1}{', "1 2", "\ufeff{}", "/* c */{}", '{"a":1} // c', "[1]]", '{"a":}', "\u00a0{}",
    ];
    for (const text of bad) {
      expect(() => JSON.parse(text), text).toThrow();
      expect(failure(text).message, text).toMatch(/at line \d+ column \d+$/);
    }
  });

  it("says where a syntax error is", () => {
    expect(failure('{\n  "a": 1,\n  "b": tru\n}').message).toBe('unexpected "t" at line 3 column 8');
    expect(failure('{"a": [1, 2').message).toBe("unexpected end of input at line 1 column 12");
  });

  it("refuses a key given twice, naming it with its path", () => {
    const top = failure('{"teamId":"x","teamId":"team_valid"}');
    expect(top.field).toBe("teamId");
    expect(top.message).toBe("teamId appears more than once (duplicate keys are refused)");
    expect(failure('{"a":{"list":[{"k":1},{"k":2,"k":3}]}}').field).toBe("a.list[1].k");
    // The same key written with an escape is the same key.
    expect(failure('{"teamId":1,"team\\u0049d":2}').field).toBe("teamId");
    // Equal keys in different objects are fine.
    expect(parseStrictJson('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it("refuses nesting deeper than the limit, naming the field, without running out of stack", () => {
    const nested = (depth: number) => '{"brandDesignSystem":' + '{"a":'.repeat(depth - 2) + "1" + "}".repeat(depth - 2) + "}";
    expect(() => parseStrictJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    const deep = failure(nested(5000));
    expect(deep.message).toMatch(new RegExp(`^brandDesignSystem(\\.a)+ is nested more than ${MAX_JSON_DEPTH} levels deep$`));
    expect(deep.field.startsWith("brandDesignSystem.a.a")).toBe(true);
    // 32 arrays are allowed; the 33rd, inside [0] × 32, is refused.
    expect(failure("[".repeat(100_000)).message).toBe(`${"[0]".repeat(MAX_JSON_DEPTH)} is nested more than ${MAX_JSON_DEPTH} levels deep`);
  });

  it("takes time linear in the size of the text", () => {
    // Long strings with and without escapes, many keys: a quadratic step would show as a
    // failure to finish in the test's timeout rather than as a timing assertion.
    const keys = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, "x\\n".repeat(3)]));
    const text = JSON.stringify({ s: "\\u00e9".repeat(200_000), keys });
    expect(parseStrictJson(text)).toEqual(JSON.parse(text));
  });
});
