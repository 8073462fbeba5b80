import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractText, getDocumentProxy } from "unpdf";
// The realistic enrichment corpus that bench/enrichment-realistic.js measures (plain JS modules without types).
// @ts-expect-error plain JS module without types
import { CORPUS } from "../../bench/fixtures/realistic-corpus/index.js";
// @ts-expect-error plain JS module without types
import { startCorpus } from "../../bench/fixtures/realistic-corpus/serve.js";

type PageSpec = string | Buffer | { status?: number; headers?: Record<string, string>; body?: string | Buffer };
interface Site {
  host: string;
  path?: string;
  country: string;
  cms: string;
  traps: string[];
  pages: Record<string, PageSpec>;
  truth: { email: string | null; findable: boolean; rendered?: boolean; socials: Record<string, string>; notes: string; decoys?: Record<string, string> };
}
const corpus = CORPUS as Site[];

/** A page's bytes as text, byte for byte (ASCII addresses read the same in every legacy encoding). */
const raw = (spec: PageSpec): string => {
  const body = typeof spec === "string" || Buffer.isBuffer(spec) ? spec : spec.body ?? "";
  return Buffer.isBuffer(body) ? body.toString("latin1") : body;
};
const isPdf = (spec: PageSpec): boolean => typeof spec === "object" && !Buffer.isBuffer(spec) && /application\/pdf/.test(String((spec as { headers?: Record<string, string> }).headers?.["content-type"] ?? ""));
/** The text of the PDFs a site serves (unpdf, the PDF library the product uses). */
async function pdfText(site: Site): Promise<string> {
  const texts: string[] = [];
  for (const spec of Object.values(site.pages)) {
    if (!isPdf(spec)) continue;
    const doc = await getDocumentProxy(new Uint8Array((spec as { body: Buffer }).body));
    texts.push((await extractText(doc, { mergePages: true })).text);
  }
  return texts.join("\n");
}
const siteText = (site: Site) => Object.values(site.pages).map(raw).join("\n");
const lastSegment = (url: string) => decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).pop() ?? "");

/** Traps that encode the whole address in the markup (decodable, so findable, but not readable as text). */
const ENCODED = ["cloudflare", "joomla4-hidden", "typo3-crypt", "entities"];

describe("realistic enrichment corpus", () => {
  it("has at least 160 sites across many countries and site builders", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(160);
    expect(new Set(corpus.map((s) => s.country)).size).toBeGreaterThanOrEqual(12);
    expect(new Set(corpus.map((s) => s.cms.split("/")[0])).size).toBeGreaterThanOrEqual(12);
  });

  it("names, for every profile in the truth, a link the site really shows", () => {
    const missing = corpus.flatMap((site) => {
      const text = siteText(site);
      const decoded = decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, "%25"));
      return Object.values(site.truth.socials).filter((url) => !text.includes(lastSegment(url)) && !decoded.includes(lastSegment(url))).map((url) => `${site.host}: ${url}`);
    });
    expect(missing).toEqual([]);
  });

  it("shows the local part of every findable address somewhere in its pages", () => {
    const missing = corpus
      .filter((s) => s.truth.email && s.truth.findable && !s.traps.some((t) => ENCODED.includes(t)))
      .filter((s) => !siteText(s).toLowerCase().includes(s.truth.email!.split("@")[0]!.toLowerCase()))
      .map((s) => s.host);
    expect(missing).toEqual([]);
  });

  it("never writes an address marked not findable as plain text or in a mailto", () => {
    const leaked = corpus
      .filter((s) => s.truth.email && !s.truth.findable)
      .filter((s) => siteText(s).toLowerCase().includes(s.truth.email!.toLowerCase()))
      .map((s) => s.host);
    expect(leaked).toEqual([]);
    expect(corpus.filter((s) => s.truth.email && !s.truth.findable).length).toBeGreaterThanOrEqual(4);
  });

  it("explains every decoy and never lists the truth as one", async () => {
    for (const site of corpus) {
      // A decoy may stand in a linked PDF or be written backwards for a script to turn round.
      const text = `${siteText(site)}\n${[...siteText(site)].reverse().join("")}\n${await pdfText(site)}`.toLowerCase();
      for (const address of Object.keys(site.truth.decoys ?? {})) {
        expect(address.toLowerCase()).not.toBe(site.truth.email?.toLowerCase());
        expect(text, `${site.host} decoy ${address}`).toContain(address.split("@")[1]!.toLowerCase());
      }
    }
  });

  it("links every PDF it serves from one of its HTML pages, and the PDFs of sites whose address shows only there hold it as text", async () => {
    for (const site of corpus) {
      for (const [path, spec] of Object.entries(site.pages)) {
        if (!isPdf(spec)) continue;
        expect(siteText(site), `${site.host}${path}`).toContain(`href="${path}"`);
      }
      const pdfs = await pdfText(site);
      if (pdfs && site.truth.email && site.truth.rendered && !site.truth.findable && !siteText(site).includes("<script")) expect(pdfs.toLowerCase()).toContain(site.truth.email.toLowerCase());
    }
  });
});

describe("serving the realistic corpus", () => {
  let server: { port: number; close(): Promise<void>; startUrl(site: Site): string };
  beforeAll(async () => {
    server = await startCorpus(corpus);
  });
  afterAll(() => server.close());

  const get = (host: string, path: string, cookie?: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      request({ host: "127.0.0.1", port: server.port, path, headers: { host, ...(cookie ? { cookie } : {}) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
        .on("error", reject)
        .end();
    });

  it("rewrites the sites' absolute links to themselves so that they point at the loopback server", async () => {
    const page = await get("www.baeckerei-huber-rosenheim.de", "/");
    expect(page.status).toBe(200);
    const html = page.body.toString("utf8");
    expect(html).toContain(`href="http://www.baeckerei-huber-rosenheim.de:${server.port}/kontakt/"`);
    expect(html).not.toContain("https://www.baeckerei-huber-rosenheim.de/");
    // links to other sites stay as they are
    expect(html).toContain("https://www.webwerk-rosenheim.de");
  });

  it("redirects /path to /path/ and the other host name to the site's, as real servers do", async () => {
    const slash = await get("www.baeckerei-huber-rosenheim.de", "/kontakt");
    expect(slash.status).toBe(301);
    expect(slash.headers.location).toBe(`http://www.baeckerei-huber-rosenheim.de:${server.port}/kontakt/`);
    const alias = await get("baeckerei-huber-rosenheim.de", "/impressum/");
    expect(alias.status).toBe(301);
    expect(alias.headers.location).toBe(`http://www.baeckerei-huber-rosenheim.de:${server.port}/impressum/`);
  });

  it("serves legacy pages as raw bytes with the charset declared only where the site declares it", async () => {
    const cp1252 = await get("www.zur-linde-bamberg.de", "/kontakt.htm");
    expect(cp1252.headers["content-type"]).toBe("text/html");
    expect(cp1252.body.includes(Buffer.from([0x84]))).toBe(true); // „ in Windows-1252
    expect(cp1252.body.toString("latin1")).toContain('content="text/html; charset=windows-1252"');
    const latin2 = await get("www.napfenypanzio.hu", "/elerhetoseg.html");
    expect(latin2.headers["content-type"]).toBe("text/html; charset=iso-8859-2");
    expect(latin2.body.includes(Buffer.from([0xf5]))).toBe(true); // ő in ISO-8859-2
  });

  it("serves several sites under one platform host by path", async () => {
    const a = await get("linktr.ee", "/lecamiondetacos");
    const b = await get("linktr.ee", "/brooklynyogacollective");
    expect(a.body.toString("utf8")).toContain("mailto:lecamiondetacos@gmail.com");
    expect(b.body.toString("utf8")).toContain("mailto:hello@brooklynyogacollective.com");
  });

  it("answers a bot-checked site with its challenge until the request carries the cookie the challenge's script computes", async () => {
    const challenge = await get("www.weinhandlung-reuter.de", "/");
    const html = challenge.body.toString("utf8");
    expect(challenge.status).toBe(202);
    expect(html).not.toContain("weinhandlung-reuter.de");
    // Run the challenge's own arithmetic, as a browser would, to get the cookie it sets.
    const parts = JSON.parse(/var p=(\[[^\]]+\])/.exec(html)![1]!) as number[];
    const token = parts.map((p) => ((p ^ 0x5a5a5a5a) >>> 0).toString(16).padStart(8, "0")).join("");
    const page = await get("www.weinhandlung-reuter.de", "/", `other=1; _I_=${token}`);
    expect(page.status).toBe(200);
    expect(page.body.toString("utf8")).toContain("mailto:wein@weinhandlung-reuter.de");
    expect((await get("www.weinhandlung-reuter.de", "/", "_I_=wrong")).status).toBe(202);
  });
});
