import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { SafeWebFetcher } from "../../../src/providers/web/safe-fetcher.js";
import { crawlSite } from "../../../src/providers/web/site-crawler.js";
import { fixtureLookup, startFixtureSites, type FixtureMap } from "../../helpers/fixture-sites.js";

/**
 * The failure kinds of issue 13 at the level of a whole site: fixture sites on
 * 127.0.0.1, crawled through the real fetcher and the extraction worker pool.
 */
const fetcher = () => new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach/0.1", lookup: fixtureLookup });
const page = (title: string, body: string, head = "") => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

async function crawl(sites: FixtureMap, host: string, options: { path?: string; businessName?: string } = {}) {
  const server = await startFixtureSites(sites);
  const facts = await crawlSite(fetcher(), server.url(host, options.path ?? "/"), { businessName: options.businessName });
  return { facts, server };
}

describe("the wrong mailbox no longer wins (kind 1)", () => {
  it("the owner's freemail inbox beats the web agency's address in the footer and the imprint", async () => {
    const footer = '<footer><p>© 2024 Bäckerei Müller</p><p>Webdesign &amp; Umsetzung: <a href="https://pixelwerk-design.de">Pixelwerk</a> · info@pixelwerk-design.de</p></footer>';
    const { facts } = await crawl(
      {
        "baeckerei-mueller.de": {
          "/": page("Bäckerei Müller", `<h1>Frisches Brot</h1><a href="/impressum">Impressum</a>${footer}`),
          "/impressum": page("Impressum", `<h2>Angaben gemäß § 5 TMG</h2><p>Bäckerei Müller<br>Inhaber: Max Müller<br>Hauptstr. 1, 70173 Stuttgart</p><p>Telefon: 0711 123456<br>E-Mail: baeckerei.mueller@t-online.de</p><h3>Konzept und Gestaltung</h3><p>Pixelwerk GmbH<br>kontakt@pixelwerk-design.de</p>${footer}`),
        },
      },
      "baeckerei-mueller.de",
    );
    expect(facts.email).toBe("baeckerei.mueller@t-online.de");
  });

  it("an Italian certified-mail (PEC) box and a jobs mailbox lose to the ordinary inbox", async () => {
    const { facts } = await crawl(
      {
        "pizzeria-da-mario.it": {
          "/": page("Pizzeria da Mario", '<a href="/contatti/">Contatti</a>'),
          "/contatti/": page("Contatti", "<p>PEC: pizzeriadamario@pec.it</p><p>Lavora con noi: jobs@pizzeria-da-mario.it</p><p>Email: pizzeriadamario@libero.it</p><p>P.IVA 01234567890</p>"),
        },
      },
      "pizzeria-da-mario.it",
    );
    expect(facts.email).toBe("pizzeriadamario@libero.it");
  });

  it("the general inbox beats a department's, even one shown on every page; a PEC box is returned only when it is the only address", async () => {
    const bar = "<header><p>Reservierungen: reservation@hotel-alpenblick.ch · +41 33 000 00 00</p></header>";
    const { facts } = await crawl(
      {
        "hotel-alpenblick.ch": {
          "/": page("Hotel Alpenblick", `${bar}<a href="/kontakt">Kontakt</a><a href="/zimmer">Zimmer</a>`),
          "/zimmer": page("Zimmer", `${bar}<p>Doppelzimmer mit Aussicht.</p>`),
          "/kontakt": page("Kontakt", `${bar}<p>Allgemeine Anfragen: info@hotel-alpenblick.ch</p><p>Jobs: jobs@hotel-alpenblick.ch</p>`),
        },
      },
      "hotel-alpenblick.ch",
    );
    expect(facts.email).toBe("info@hotel-alpenblick.ch");
    const pecOnly = await crawl({ "officina-rossi.it": { "/": page("Officina Rossi", "<footer>Officina Rossi · P.IVA 0123 · PEC: officinarossi@pec.it</footer>") } }, "officina-rossi.it");
    expect(pecOnly.facts.email).toBe("officinarossi@pec.it");
  });

  it("an outside data-protection officer and a chamber are not the business", async () => {
    const { facts } = await crawl(
      {
        "praxis-weber.de": {
          "/": page("Zahnarztpraxis Dr. Weber", '<a href="/impressum">Impressum</a><a href="/datenschutz">Datenschutz</a>'),
          "/impressum": page("Impressum", "<p>Zahnarztpraxis Dr. Weber<br>E-Mail: praxis.weber@gmx.de</p><p>Zuständige Kammer: Landeszahnärztekammer, info@lzk-bw.de</p>"),
          "/datenschutz": page("Datenschutz", "<h2>Datenschutzbeauftragter</h2><p>Dr. Extern</p><p>Musterweg 5</p><p>dsb@datenschutz-extern.de</p>"),
        },
      },
      "praxis-weber.de",
    );
    expect(facts.email).toBe("praxis.weber@gmx.de");
  });

  it("when only third parties' addresses are on the site, there is no email rather than a wrong one", async () => {
    const { facts } = await crawl(
      { "salon-anna.de": { "/": page("Salon Anna", "<p>Termine nur telefonisch.</p><footer>Website by Studio Nord · hello@studionord.de</footer>") } },
      "salon-anna.de",
    );
    expect(facts.email).toBeNull();
  });

  it("a link-in-bio page given as the website: its profiles are the business's, and the site it links is crawled", async () => {
    const linktree = (req: { socket: { localPort?: number } }, res: { writeHead: (s: number, h: Record<string, string>) => { end: (b: string) => void } }) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(page("@bakerybob | Linktree", `<a href="https://www.instagram.com/bakerybob">Instagram</a><a href="http://bakerybob.de:${req.socket.localPort}/">Our website</a><a href="https://linktr.ee/s/about">Linktree</a>`));
    const { facts, server } = await crawl(
      {
        "linktr.ee": { "/bakerybob": linktree as never },
        "bakerybob.de": { "/": page("Bakery Bob", '<a href="mailto:hello@bakerybob.de">hello@bakerybob.de</a>') },
      },
      "linktr.ee",
      { path: "/bakerybob" },
    );
    expect(facts.email).toBe("hello@bakerybob.de");
    expect(facts.socials).toEqual({ instagram: "https://www.instagram.com/bakerybob" });
    // Only the business's own page of the platform was read: no common paths, no other pages.
    expect(server.requests.filter((r) => r.host === "linktr.ee" && r.path !== "/robots.txt").map((r) => r.path)).toEqual(["/bakerybob"]);
  });
});

describe("the contact page is found (kind 2)", () => {
  it.each([
    ["Italian", "/scrivici/", "Scrivici"],
    ["Finnish", "/ota-yhteytta/", "Ota yhteyttä"],
    ["Hungarian", "/kapcsolat", "Kapcsolat"],
    ["English", "/get-in-touch/", "Say hi"],
  ])("%s words (%s)", async (_language, path, text) => {
    const nav = `<nav>${["/galleria", "/menu", "/storia", "/prezzi", "/eventi", "/news", path].map((p) => `<a href="${p}">${p === path ? text : p.slice(1)}</a>`).join(" ")}</nav>`;
    const { facts } = await crawl({ "kleine-firma.eu": { "/": page("Firma", nav), [path]: page("Kontakt", "<p>posta@kleine-firma.eu</p>") } }, "kleine-firma.eu");
    expect(facts.email).toBe("posta@kleine-firma.eu");
  });

  it("an icon link named only by aria-label, title or alt", async () => {
    for (const attr of ['aria-label="Kontakt"', 'title="Contact us"', ""]) {
      const inner = attr ? "<i class='icon-mail'></i>" : '<img src="/mail.png" alt="Schreiben Sie uns">';
      const nav = `${["/a", "/b", "/c", "/d", "/e", "/f"].map((p) => `<a href="${p}">${p}</a>`).join("")}<a href="/x7" ${attr}>${inner}</a>`;
      const { facts } = await crawl({ "icon-firma.de": { "/": page("Firma", nav), "/x7": page("…", "<p>mail@icon-firma.de</p>") } }, "icon-firma.de");
      expect(facts.email).toBe("mail@icon-firma.de");
    }
  });

  it("ranks the remaining same-site links when no word matches, and fetches no page twice", async () => {
    const links = ["/about", "/about/", "/about/index.html", "/seite-1", "/seite-2", "/blog/2019/05/post", "/files/menu.pdf"].map((p) => `<a href="${p}">${p}</a>`).join("");
    const { facts, server } = await crawl(
      {
        "no-words.de": {
          "/": page("No words", links),
          "/about": page("A", "<p>Wir sind da.</p>"),
          "/about/": page("A", "<p>Wir sind da.</p>"),
          "/seite-2": page("S2", "<p>Schreiben: hallo@no-words.de</p>"),
        },
      },
      "no-words.de",
    );
    expect(facts.email).toBe("hallo@no-words.de");
    const paths = server.requests.filter((r) => r.path !== "/robots.txt").map((r) => r.path);
    expect(paths.filter((p) => p.startsWith("/about"))).toHaveLength(1);
    expect(paths).not.toContain("/files/menu.pdf");
    expect(paths).not.toContain("/blog/2019/05/post");
  });
});

describe("page structure is followed (kind 3)", () => {
  it("a frameset's frames, their links included", async () => {
    const { facts } = await crawl(
      {
        "frames.de": {
          "/": '<html><frameset cols="20%,80%"><frame src="nav.html"><frame src="main.html"></frameset></html>',
          "/nav.html": page("Nav", '<a href="kontakt.html" target="main">Kontakt</a>'),
          "/main.html": page("Willkommen", "<p>Willkommen bei uns.</p>"),
          "/kontakt.html": page("Kontakt", "<p>Mail: buero@frames.de</p>"),
        },
      },
      "frames.de",
    );
    expect(facts.email).toBe("buero@frames.de");
  });

  it("a <meta http-equiv=refresh> and a <base href>", async () => {
    const { facts } = await crawl(
      {
        "refresh.de": {
          "/": '<meta http-equiv="refresh" content="0; url=/site/start.html">',
          "/site/start.html": page("Start", '<base href="/site/pages/"><a href="kontakt.html">Kontakt</a>'),
          "/site/pages/kontakt.html": page("Kontakt", "<p>info@refresh.de</p>"),
        },
      },
      "refresh.de",
    );
    expect(facts.email).toBe("info@refresh.de");
  });
});

describe("profiles are the business's (kind 8)", () => {
  it("the agency's profile beside its credit is left out; legacy and plugin forms are read", async () => {
    const { facts } = await crawl(
      {
        "cafe-rosa.de": {
          "/": page(
            "Café Rosa",
            '<iframe src="https://www.facebook.com/plugins/page.php?href=https%3A%2F%2Fwww.facebook.com%2Fpages%2FCafe-Rosa%2F123456789012&tabs=timeline"></iframe>' +
              '<footer><p>Folgen Sie uns: <a href="http://twitter.com/#!/caferosa">Twitter</a></p><p>Design by Pixelwerk <a href="https://www.facebook.com/pixelwerkdesign">fb</a> <a href="https://www.instagram.com/pixelwerk.design">ig</a></p></footer>',
          ),
        },
      },
      "cafe-rosa.de",
    );
    expect(facts.socials).toEqual({ facebook: "https://www.facebook.com/pages/Cafe-Rosa/123456789012", twitter: "https://x.com/caferosa" });
  });
});

describe("charsets (kind 10)", () => {
  it("a windows-1252 page declared ISO-8859-1 keeps its € and typographic quotes", async () => {
    const text = "Unser „Frühstück“ – täglich ab 7 Uhr, für nur 9,50 € pro Person im Café am Markt.";
    const body = iconv.encode(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>Café am Markt</title></head><body><p>${text}</p><p>café@markt-cafe.de</p><p>info@markt-cafe.de</p></body></html>`, "windows-1252");
    const { facts } = await crawl({ "markt-cafe.de": { "/": { headers: { "content-type": "text/html" }, body } } }, "markt-cafe.de");
    expect(facts.businessSummary).toBe(text);
    expect(facts.email).toBe("info@markt-cafe.de");
    expect(facts.businessSources[0]!.title).toBe("Café am Markt");
  });
});
