import { describe, expect, it } from "vitest";
import { cleanEmail } from "../../src/core/lead-values.js";
import { cleanEmail as extractedEmail } from "../../src/providers/web/extract/emails.js";

describe("one grammar of an email address for every lead (issue 28: importers, live sources and websites)", () => {
  it("a list's column and a web page's text keep and refuse the same addresses", () => {
    const cases: Array<[string, string | null]> = [
      ["Info@Zahnarzt-Huber.LI", "Info@zahnarzt-huber.li"],
      ["kontakt@büro-müller.de", "kontakt@büro-müller.de"],
      ["a..b@shop.li", null],
      ["info.@shop.li", null],
      ["info@shop-.li", null],
      ["info@shop..li", null],
      ["info@localhost", null],
      ["info@192.168.1.1", null],
      [`${"x".repeat(65)}@shop.li`, null],
    ];
    for (const [address, kept] of cases) {
      expect(cleanEmail(address), address).toBe(kept);
      expect(extractedEmail(address) ?? null, address).toBe(kept);
    }
  });
});
