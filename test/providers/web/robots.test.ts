import { describe, expect, it } from "vitest";
import { productToken, RobotsRules } from "../../../src/providers/web/robots.js";

describe("RobotsRules (RFC 9309)", () => {
  const rules = RobotsRules.parse(`
# comment
User-agent: *
Disallow: /private
Allow: /private/public

User-agent: Outreach
User-agent: otherbot
Disallow: /*.pdf$
Disallow: /search
Allow: /search/about

User-agent: outreach
Disallow: /admin
`);

  it("uses all groups naming the product token (case-insensitive) and ignores *", () => {
    expect(rules.isAllowed("outreach", "/private/x")).toBe(true);
    expect(rules.isAllowed("outreach", "/admin/x")).toBe(false);
    expect(rules.isAllowed("outreach", "/menu.pdf")).toBe(false);
    expect(rules.isAllowed("outreach", "/menu.pdf?x=1")).toBe(true);
    expect(rules.isAllowed("outreach", "/search?q=1")).toBe(false);
  });

  it("lets the longest match win and allow win a tie", () => {
    expect(rules.isAllowed("outreach", "/search/about")).toBe(true);
    expect(rules.isAllowed("somebot", "/private/public/x")).toBe(true);
    expect(rules.isAllowed("somebot", "/private/x")).toBe(false);
    const tie = RobotsRules.parse("User-agent: *\nDisallow: /a\nAllow: /a\n");
    expect(tie.isAllowed("x", "/a")).toBe(true);
  });

  it("falls back to * for other crawlers, and allows robots.txt itself", () => {
    expect(rules.isAllowed("somebot", "/anything")).toBe(true);
    expect(RobotsRules.parse("User-agent: *\nDisallow: /").isAllowed("x", "/robots.txt")).toBe(true);
    expect(RobotsRules.parse("User-agent: *\nDisallow: /").isAllowed("x", "/")).toBe(false);
  });

  it("treats an empty Disallow as allowing everything and matches percent-encoding alike", () => {
    expect(RobotsRules.parse("User-agent: *\nDisallow:\n").isAllowed("x", "/a")).toBe(true);
    expect(RobotsRules.parse("User-agent: *\nDisallow: /%7Euser\n").isAllowed("x", "/~user/x")).toBe(false);
  });

  it("parses files of at least 500 KiB", () => {
    const filler = "# padding line to make the file large\n".repeat(12_000); // ≈ 460 KB
    const big = RobotsRules.parse(`User-agent: *\n${filler}Disallow: /late\n`);
    expect(big.isAllowed("x", "/late")).toBe(false);
  });

  it("has allow-all and disallow-all forms for 4xx and 5xx answers", () => {
    expect(RobotsRules.allowAll().isAllowed("x", "/a")).toBe(true);
    expect(RobotsRules.disallowAll().isAllowed("x", "/a")).toBe(false);
  });

  it("takes the product token from the User-Agent", () => {
    expect(productToken("outreach/0.1 (+https://x)")).toBe("outreach");
  });
});

describe("robots.txt of hostile size, off the event loop's critical path (issue 27, item 6)", () => {
  /** Just under 512 KiB of one-rule groups: 16,800 groups, one repeated rule, then a rule of its own. */
  const hostile = "User-agent: *\nDisallow: /a/b/c\n".repeat(16_800) + "User-agent: *\nAllow: /a/b/c/open\nDisallow: /x\n";

  it("parseYielding answers as parse does, and lets the event loop turn while it parses", async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    const sliced = RobotsRules.parseYielding(hostile);
    expect(turned).toBe(false);
    const rules = await sliced;
    expect(turned).toBe(true);
    const whole = RobotsRules.parse(hostile);
    for (const path of ["/a/b/c", "/a/b/c/d", "/a/b/c/open", "/x/y", "/elsewhere"]) expect(rules.isAllowed("outreach", path), path).toBe(whole.isAllowed("outreach", path));
    expect(rules.isAllowed("outreach", "/a/b/c/d")).toBe(false);
    expect(rules.isAllowed("outreach", "/a/b/c/open")).toBe(true);
    expect(rules.isAllowed("outreach", "/x/y")).toBe(false);
  });

  it("a rule repeated thousands of times answers as the rule once; allow still wins a tie with the same disallow", async () => {
    const repeated = await RobotsRules.parseYielding("User-agent: *\n" + "Disallow: /shop\n".repeat(20_000) + "Allow: /shop\n" + "Disallow: /shop/cart\n".repeat(3));
    expect(repeated.isAllowed("outreach", "/shop")).toBe(true);
    expect(repeated.isAllowed("outreach", "/shop/cart")).toBe(false);
    expect(repeated.isAllowed("outreach", "/shop/item")).toBe(true);
  });
});
