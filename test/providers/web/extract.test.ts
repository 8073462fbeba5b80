import { describe, expect, it } from "vitest";
import { cleanEmail, decodeCfEmail } from "../../../src/providers/web/extract/emails.js";
import { extractPage, type PageFacts } from "../../../src/providers/web/extract/page-facts.js";
import { normaliseSocial } from "../../../src/providers/web/extract/socials.js";

const page = (html: string, url = "http://shop.de/"): PageFacts => extractPage(new TextEncoder().encode(html), "text/html; charset=utf-8", url);
const emails = (html: string, url?: string) => page(html, url).emails.map((e) => e.email);

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
    ["support@wix.com", undefined],
    ["Admin@Shop.DE", "Admin@shop.de"],
    ["mailto:info@shop.de?subject=Hi", "info@shop.de"],
    ["mailto://info@shop.de", "info@shop.de"],
    ["MAILTO:info%40shop.de?subject=Anfrage%20Termin", "info@shop.de"],
    ["%20info@shop.de", "info@shop.de"],
    ["u003einfo@shop.de", "info@shop.de"],
    ["info@shop.co.uk.", "info@shop.co.uk"],
    ["j.smith+orders@shop.com.au", "j.smith+orders@shop.com.au"],
    ["info@bäckerei-müller.de", "info@bäckerei-müller.de"],
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

describe("addresses split across nodes (kind 4)", () => {
  it("joins inline elements, comments, <wbr> and &shy; as a browser renders them", () => {
    expect(emails("<p><span>info</span><span>@shop.de</span></p>")).toEqual(["info@shop.de"]);
    expect(emails("<p><span>kontakt</span>@<span>shop</span>.de</p>")).toEqual(["kontakt@shop.de"]);
    expect(emails("<p>in<!-- spam -->fo@sh<!-- x -->op.de</p>")).toEqual(["info@shop.de"]);
    expect(emails("<p>bestellung@<wbr>baeckerei-<wbr>mueller.de</p>")).toEqual(["bestellung@baeckerei-mueller.de"]);
    expect(emails("<p>in&shy;fo@bäcke&shy;rei.de</p>")).toEqual(["info@bäckerei.de"]);
  });

  it("does not glue neighbouring words onto an address", () => {
    expect(emails("<p>LS15 8BA<br>admin@shop.co.uk</p><span>Tel 0113</span><span>sales@shop.co.uk</span>", "http://shop.co.uk/")).toEqual(["admin@shop.co.uk", "sales@shop.co.uk"]);
    expect(emails("<p><b>Mail</b>info@shop.de</p>")).toEqual(["info@shop.de"]);
    expect(emails("<p><a href='#'>info@shop.de</a>Telefon 0711</p>")).toEqual(["info@shop.de"]);
    expect(emails("<p>info@shop.deTelefon: 0711</p>")).toEqual(["info@shop.de"]);
  });

  it("skips the decoy text hidden inside an address", () => {
    expect(emails('<p>info<span style="display:none">REMOVE-THIS</span>@shop.de</p>')).toEqual(["info@shop.de"]);
  });

  it("reads text reversed by a right-to-left override the right way round", () => {
    expect(emails('<p>Mail: <span style="unicode-bidi:bidi-override; direction: rtl">ed.pohs@ofni</span></p>')).toEqual(["info@shop.de"]);
  });
});

describe("obfuscations (kind 5)", () => {
  it.each([
    ["info [at] shop [dot] de", "info@shop.de"],
    ["info(AT)shop.de", "info@shop.de"],
    ["info (At) shop (Punkt) de", "info@shop.de"],
    ["info{at}shop.de", "info@shop.de"],
    ["info @ shop.de", "info@shop.de"],
    ["info@ shop.de", "info@shop.de"],
    ["contact [arobase] boulangerie [point] fr", "contact@boulangerie.fr"],
    ["contact (arobase) boulangerie.fr", "contact@boulangerie.fr"],
    ["info (chiocciola) pizzeria (punto) it", "info@pizzeria.it"],
    ["info [arroba] bar [punto] es", "info@bar.es"],
    ["info [kukac] fodrasz [pont] hu", "info@fodrasz.hu"],
    ["myynti (ät) parturi (piste) fi", "myynti@parturi.fi"],
    ["info_at_shop.de", "info@shop.de"],
    ["write to info at shop dot de", "info@shop.de"],
    ["info ät shop.de", "info@shop.de"],
  ])("%s", (text, expected) => {
    expect(emails(`<p>${text}</p>`)).toEqual([expected]);
  });

  it("does not read ordinary sentences as addresses", () => {
    expect(emails("<p>Meet us at the market. We are at home dot com events.</p>")).toEqual([]);
    expect(emails("<p>Open (at) 9 am [dot] daily</p>")).toEqual([]);
  });
});

describe("script and noscript (kind 6)", () => {
  it("reads <noscript> as text", () => {
    expect(emails("<noscript><p>Bitte schreiben Sie an praxis@shop.de</p></noscript>")).toEqual(["praxis@shop.de"]);
  });

  it("reads addresses in site builders' page data and simple script concatenation, never in styles", () => {
    const found = page(
      `<style>/* x@shop.de */</style><script type="application/json" id="wix-warmup-data">{"contact":{"email":"studio\\u0040shop.de"}}</script>` +
        `<script>document.write('<a href="mailto:' + 'kasse' + '@' + 'shop.de' + '">mail</a>')</script><p>ok@shop.de</p>`,
    ).emails;
    expect(found.map((e) => [e.email, e.source])).toEqual([
      ["ok@shop.de", "text"],
      ["studio@shop.de", "script"],
      ["kasse@shop.de", "script"],
    ]);
  });

  it("reads JSON-LD and microdata", () => {
    const found = page(
      `<script type="application/ld+json">{"@graph":[{"@type":"Bakery","name":"Müller","contactPoint":{"email":"mailto:laden@shop.de"}}]}</script>` +
        `<span itemprop="email">kasse@shop.de</span><meta itemprop="email" content="buero@shop.de">`,
    ).emails;
    expect(found.map((e) => [e.email, e.source]).sort()).toEqual([
      ["buero@shop.de", "jsonld"],
      ["kasse@shop.de", "jsonld"],
      ["laden@shop.de", "jsonld"],
    ]);
  });
});

describe("CMS cloaking decoded without running it", () => {
  it("Joomla 4's <joomla-hidden-mail> (base64 halves) and Joomla 3's entity-and-concatenation script", () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    expect(emails(`<joomla-hidden-mail is-link="1" is-email="1" first="${b64("auftrag")}" last="${b64("druckerei.de")}" text="" base="">Diese E-Mail-Adresse ist geschützt</joomla-hidden-mail>`)).toEqual(["auftrag@druckerei.de"]);
    const joomla3 =
      "<span id=\"cloak1a2b\">This email address is being protected from spambots.</span><script type='text/javascript'>" +
      "document.getElementById('cloak1a2b').innerHTML = ''; var prefix = '&#109;a' + 'i&#108;' + '&#116;o'; var path = 'hr' + 'ef' + '=';" +
      " var addy1a2b = '&#105;nf&#111;' + '&#64;'; addy1a2b = addy1a2b + 'c&#97;st&#97;gn&#111;' + '&#46;' + '&#105;t';" +
      " document.getElementById('cloak1a2b').innerHTML += '<a ' + path + '\\'' + prefix + ':' + addy1a2b + '\\'>'+addy1a2b+'<\\/a>';</script>";
    expect(emails(joomla3, "http://castagno.it/")).toEqual(["info@castagno.it"]);
  });
});

describe("malformed mailto (kind 7)", () => {
  it("reads mailto://, percent-encoded, ?subject= and several recipients", () => {
    const html = [
      '<a href="mailto://info@shop.de">a</a>',
      '<a href="mailto:kontakt%40shop.de?subject=Anfrage">b</a>',
      '<a href="MAILTO:%20buero@shop.de">c</a>',
      '<a href="mailto:a@shop.de,b@shop.de?cc=c@shop.de">d</a>',
      '<a href="mailto:laden&#64;shop.de">e</a>',
    ].join("");
    expect(emails(html)).toEqual(["info@shop.de", "kontakt@shop.de", "buero@shop.de", "a@shop.de", "b@shop.de", "laden@shop.de"]);
  });
});

describe("ownership context", () => {
  it("marks agency credits, PEC, jobs and data-protection officers by the words before (or after) the address", () => {
    const found = page(
      "<p>Kontakt: info@shop.de</p><footer><p>Webdesign: Pixelwerk GmbH, hallo@pixelwerk.de</p><p>Bewerbungen bitte an karriere@shop.de</p>" +
        "<p>PEC: shop@legalmail.it</p><p>shop2@pec.it (PEC)</p><h3>Datenschutzbeauftragter</h3><p>Dr. Datenschutz</p><p>Musterweg 1</p><p>dsb@extern.de</p></footer>",
    ).emails;
    expect(Object.fromEntries(found.map((e) => [e.email, e.cue?.kind]))).toEqual({
      "info@shop.de": "owner",
      "hallo@pixelwerk.de": "credit",
      "karriere@shop.de": "jobs",
      "shop@legalmail.it": "pec",
      "shop2@pec.it": "pec",
      "dsb@extern.de": "privacy",
    });
  });

  it("names the domains the page credits, and owners from imprint lines", () => {
    const facts = page('<p>Inhaber: Dipl.-Ing. Max Müller, Hauptstr. 1</p><footer>Website by <a href="https://pixelwerk.de/">Pixelwerk</a> · <a href="https://facebook.com/shop">fb</a></footer>');
    expect(facts.creditDomains).toEqual(["pixelwerk.de"]);
    expect(facts.owners).toEqual(["max muller"]);
  });
});

describe("page structure (kind 3)", () => {
  it("reports frames, meta refresh and resolves links against <base href>", () => {
    const facts = page('<base href="http://shop.de/site/"><meta http-equiv="refresh" content="0; URL=\'start.html\'"><frameset><frame src="menu.html"><frame src="/main.html"></frameset><a href="kontakt.html">K</a>');
    expect(facts.refresh).toBe("http://shop.de/site/start.html");
    expect(facts.frames).toEqual(["http://shop.de/site/menu.html", "http://shop.de/main.html"]);
    expect(facts.links.map((l) => l.url)).toEqual(["http://shop.de/site/kontakt.html"]);
  });

  it("reads a link's words from aria-label, title and image alt", () => {
    const facts = page('<a href="/k1" aria-label="Kontakt"><i></i></a><a href="/k2" title="Scrivici"></a><a href="/k3"><img src="x.png" alt="Get in touch"></a><td onclick="location.href=\'kapcsolat.html\'">x</td>');
    expect(facts.links.map((l) => [new URL(l.url).pathname, l.label])).toEqual([
      ["/k1", "Kontakt"],
      ["/k2", "Scrivici"],
      ["/k3", "Get in touch"],
      ["/kapcsolat.html", ""],
    ]);
  });
});

describe("summaries (kind 9)", () => {
  it("takes body text from tables and <font>, skipping navigation, footers and builders' default taglines", () => {
    const text = "Seit 1920 backen wir Brot und Brötchen mit regionalem Mehl, jeden Morgen frisch für Sie.";
    const facts = page(`<meta name="description" content="Just another WordPress site"><nav><p>${"Home Leistungen Kontakt ".repeat(5)}</p></nav><table><tr><td><font face="Arial">${text}</font></td></tr></table>`);
    expect(facts.summary).toBe(text);
    expect(page(`<meta name="description" content="Eine weitere WordPress-Website"><p>${text}</p>`).summary).toBe(text);
    expect(page(`<meta name="description" content="Un altro sito targato WordPress"><p>${text}</p>`).summary).toBe(text);
  });
});

describe("normaliseSocial (kind 8)", () => {
  it.each([
    ["https://www.facebook.com/sharer/sharer.php?u=x", undefined],
    ["https://facebook.com/sharer.php?u=x", undefined],
    ["https://www.facebook.com/tr?id=1&ev=PageView", undefined],
    ["https://www.facebook.com/dialog/share?app_id=1", undefined],
    ["https://twitter.com/intent/tweet?url=x", undefined],
    ["https://twitter.com/share?url=x", undefined],
    ["https://x.com/shop/status/123", undefined],
    ["https://www.linkedin.com/shareArticle?mini=true", undefined],
    ["https://www.linkedin.com/feed/", undefined],
    ["https://www.instagram.com/p/Cx12ab/", undefined],
    ["https://example.com/facebook", undefined],
    ["javascript:void(0)", undefined],
    ["https://www.facebook.com/wix", undefined],
    ["https://twitter.com/squarespace", undefined],
    ["http://m.facebook.com/BakeryBob/?fref=ts", { network: "facebook", url: "https://www.facebook.com/BakeryBob" }],
    ["https://www.facebook.com/profile.php?id=1000123&ref=x", { network: "facebook", url: "https://www.facebook.com/profile.php?id=1000123" }],
    ["https://www.facebook.com/pages/Bakery-Bob/123456789012?ref=ts", { network: "facebook", url: "https://www.facebook.com/pages/Bakery-Bob/123456789012" }],
    ["https://www.facebook.com/p/Bakery-Bob-100063512345678/", { network: "facebook", url: "https://www.facebook.com/p/Bakery-Bob-100063512345678" }],
    ["https://www.facebook.com/plugins/page.php?href=https%3A%2F%2Fwww.facebook.com%2FBakeryBob&tabs=timeline", { network: "facebook", url: "https://www.facebook.com/BakeryBob" }],
    ["http://twitter.com/#!/bakery_bob", { network: "twitter", url: "https://x.com/bakery_bob" }],
    ["https://twitter.com/bakery_bob?lang=en", { network: "twitter", url: "https://x.com/bakery_bob" }],
    ["https://x.com/bakery_bob", { network: "twitter", url: "https://x.com/bakery_bob" }],
    ["//instagram.com/bakery.bob/", { network: "instagram", url: "https://www.instagram.com/bakery.bob" }],
    ["www.instagram.com/bakery.bob", { network: "instagram", url: "https://www.instagram.com/bakery.bob" }],
    ["https://de.linkedin.com/company/bakery-bob/about/", { network: "linkedin", url: "https://www.linkedin.com/company/bakery-bob" }],
    ["https://www.linkedin.com/in/bob-baker-12/?trk=x", { network: "linkedin", url: "https://www.linkedin.com/in/bob-baker-12" }],
  ])("%s", (raw, expected) => {
    expect(normaliseSocial(raw)).toEqual(expected);
  });

  it("unwraps redirector links (Google Sites) and drops theme vendors' demo profiles", () => {
    const facts = page(
      '<a href="https://www.google.com/url?q=https%3A%2F%2Fwww.facebook.com%2FHundeschule&sa=D">fb</a>' +
        '<a href="https://www.facebook.com/ThemeFusion-101565403356430">f</a><a href="https://www.instagram.com/themefusion">i</a><a href="https://twitter.com/Theme_Fusion">t</a>',
    );
    expect(facts.socials.map((s) => s.url)).toEqual(["https://www.facebook.com/Hundeschule"]);
  });

  it("finds the page plugin iframe and the SDK's data-href", () => {
    const facts = page(
      '<iframe src="https://www.facebook.com/plugins/page.php?href=https%3A%2F%2Fwww.facebook.com%2Fbakerybob"></iframe><div class="fb-page" data-href="https://www.facebook.com/bakerybob2"></div>',
    );
    expect(facts.socials.map((s) => [s.url, s.source])).toEqual([
      ["https://www.facebook.com/bakerybob2", "embed"],
      ["https://www.facebook.com/bakerybob", "embed"],
    ]);
  });
});
