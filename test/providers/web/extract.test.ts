import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { cleanEmail, decodeCfEmail, findEmails, rankEmails, type FoundEmail } from "../../../src/providers/web/extract/emails.js";
import { normaliseSocial } from "../../../src/providers/web/extract/socials.js";

describe("cleanEmail", () => {
  it.each([
    ["logo@2x.png", undefined],
    ["hero@3x.webp", undefined],
    ["605a7baa-1@sentry.wixpress.com", undefined],
    ["0123456789abcdef0123456789abcdef@o1.ingest.sentry.io", undefined],
    ["0123456789abcdef0123@shop.de", undefined],
    ["noreply@shop.de", undefined],
    ["no-reply@shop.de", undefined],
    ["do-not-reply@shop.de", undefined],
    ["info@example.com", undefined],
    ["you@company.de", undefined],
    ["name@firma.de", undefined],
    ["email@domain.com", undefined],
    ["info@shop.invalidtld", undefined],
    ["info@localhost", undefined],
    ["a..b@shop.de", undefined],
    ["%E0%A4%A@shop.de", undefined],
    ["Admin@Shop.DE", "Admin@shop.de"],
    ["mailto:info@shop.de?subject=Hi", "info@shop.de"],
    ["%20info@shop.de", "info@shop.de"],
    ["u003einfo@shop.de", "info@shop.de"],
    ["info@shop.co.uk.", "info@shop.co.uk"],
    ["j.smith+orders@shop.com.au", "j.smith+orders@shop.com.au"],
  ])("%s → %s", (raw, expected) => {
    expect(cleanEmail(raw)).toBe(expected);
  });
});

describe("decodeCfEmail", () => {
  it("XORs the bytes with the first one", () => {
    const key = 0x42;
    const hex = key.toString(16) + [..."info@shop.de"].map((c) => (c.charCodeAt(0) ^ key).toString(16).padStart(2, "0")).join("");
    expect(decodeCfEmail(hex)).toBe("info@shop.de");
    expect(decodeCfEmail("zz")).toBeUndefined();
  });
});

describe("findEmails", () => {
  it("reads each text node separately, so neighbouring words are not glued on", () => {
    const $ = load("<p>LS15 8BA<br>admin@shop.co.uk</p><span>Tel 0113</span><span>sales@shop.co.uk</span>");
    expect(findEmails($, "http://shop.co.uk/").map((e) => e.email)).toEqual(["admin@shop.co.uk", "sales@shop.co.uk"]);
  });

  it("ignores addresses inside scripts and styles", () => {
    const $ = load('<script>var a = "hidden@shop.de"</script><style>/* x@shop.de */</style><p>ok@shop.de</p>');
    expect(findEmails($, "http://shop.de/").map((e) => e.email)).toEqual(["ok@shop.de"]);
  });

  it("does not read ordinary English 'at' as an address", () => {
    const $ = load("<p>Meet us at the market. We are at home dot com events.</p>");
    expect(findEmails($, "http://shop.de/")).toEqual([]);
  });
});

describe("rankEmails", () => {
  const found = (email: string, source: FoundEmail["source"] = "text"): FoundEmail => ({ email, source, pageUrl: "http://x/" });
  it("prefers the own registrable domain (PSL-aware), then role inboxes, freemail last", () => {
    const ranked = rankEmails([found("shop@gmail.com", "mailto"), found("studio@agency.co.uk", "mailto"), found("j.doe@shop.co.uk"), found("info@shop.co.uk")], "shop.co.uk");
    expect(ranked.map((e) => e.email)).toEqual(["info@shop.co.uk", "j.doe@shop.co.uk", "studio@agency.co.uk", "shop@gmail.com"]);
  });
});

describe("normaliseSocial", () => {
  it.each([
    ["https://www.facebook.com/sharer/sharer.php?u=x", undefined],
    ["https://facebook.com/sharer.php?u=x", undefined],
    ["https://www.facebook.com/tr?id=1&ev=PageView", undefined],
    ["https://www.facebook.com/plugins/page.php?href=x", undefined],
    ["https://www.facebook.com/dialog/share?app_id=1", undefined],
    ["https://twitter.com/intent/tweet?url=x", undefined],
    ["https://twitter.com/share?url=x", undefined],
    ["https://x.com/shop/status/123", undefined],
    ["https://www.linkedin.com/shareArticle?mini=true", undefined],
    ["https://www.linkedin.com/feed/", undefined],
    ["https://www.instagram.com/p/Cx12ab/", undefined],
    ["https://example.com/facebook", undefined],
    ["javascript:void(0)", undefined],
    ["http://m.facebook.com/BakeryBob/?fref=ts", { network: "facebook", url: "https://www.facebook.com/BakeryBob" }],
    ["https://www.facebook.com/profile.php?id=1000123&ref=x", { network: "facebook", url: "https://www.facebook.com/profile.php?id=1000123" }],
    ["https://twitter.com/bakery_bob?lang=en", { network: "twitter", url: "https://x.com/bakery_bob" }],
    ["https://x.com/bakery_bob", { network: "twitter", url: "https://x.com/bakery_bob" }],
    ["//instagram.com/bakery.bob/", { network: "instagram", url: "https://www.instagram.com/bakery.bob" }],
    ["https://de.linkedin.com/company/bakery-bob/about/", { network: "linkedin", url: "https://www.linkedin.com/company/bakery-bob" }],
    ["https://www.linkedin.com/in/bob-baker-12/?trk=x", { network: "linkedin", url: "https://www.linkedin.com/in/bob-baker-12" }],
  ])("%s", (raw, expected) => {
    expect(normaliseSocial(raw)).toEqual(expected);
  });
});
