import { describe, expect, test } from "vitest";
import { collapseWhitespace, isBlank } from "../../src/core/text.js";

describe("collapseWhitespace and isBlank (scans instead of regular expressions)", () => {
  test("agree with `\\s+` → ' ' then trim, and with trim() === '', for every BMP character alone, doubled, leading, trailing and inside a word", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      for (const value of [ch, ch + ch, ch + "a", "a" + ch, "a" + ch + "b", "a " + ch + "b", "a" + ch + " b"]) {
        const expected = value.replace(/\s+/g, " ").trim();
        if (collapseWhitespace(value) !== expected) throw new Error(`collapseWhitespace of U+${c.toString(16)} in ${JSON.stringify(value)}`);
      }
      if (isBlank(ch) !== (ch.trim() === "")) throw new Error(`isBlank of U+${c.toString(16)}`);
    }
    expect(collapseWhitespace("")).toBe("");
    expect(collapseWhitespace("  Café \n Zürich\t")).toBe("Café Zürich");
    expect(collapseWhitespace("Café Zürich")).toBe("Café Zürich");
    expect(isBlank("")).toBe(true);
    expect(isBlank(" \u00a0\u3000\n")).toBe(true);
    expect(isBlank(" x ")).toBe(false);
  });
});
