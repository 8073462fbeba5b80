import type { IncomingMessage, ServerResponse } from "node:http";
import { createDeflate } from "node:zlib";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { Lead } from "../../src/core/schemas/lead.js";
import { AddressPolicy } from "../../src/providers/web/address-policy.js";
import { FetchError, PDF_MAX_BYTES, SafeWebFetcher } from "../../src/providers/web/safe-fetcher.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";

const never = new AbortController().signal;

function instance() {
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 30_000, enrichSiteBudgetMs: 25_000 } });
  t.services.enrichment.useResolver(fixtureLookup);
  return t;
}

/** A real PDF, written by pdf-lib: each string a line of text on page `page` (pages before it are filler). */
async function writePdf(lines: string[], options: { title?: string; page?: number } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (options.title) doc.setTitle(options.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= (options.page ?? 1); n++) {
    const page = doc.addPage();
    const text = n === (options.page ?? 1) ? lines : [`Seite ${n}`];
    text.forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 18, font, size: 11 }));
  }
  return Buffer.from(await doc.save());
}

const pdf = (body: Buffer) => ({ headers: { "content-type": "application/pdf" }, body });

/** A PDF file whose objects are given: the xref offsets are computed, so pdf.js parses it as a real file. */
function rawPdf(objects: Array<string | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n")];
  const offsets: number[] = [];
  let size = parts[0]!.length;
  objects.forEach((object, i) => {
    offsets.push(size);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(object) ? object : Buffer.from(object), Buffer.from("\nendobj\n")]);
    parts.push(chunk);
    size += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A page whose content stream is `content` (with its own stream dictionary entries). */
function onePage(contentDict: string, content: Buffer, resources = "<< >>"): Buffer {
  return rawPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources ${resources} /Contents 4 0 R >>`,
    Buffer.concat([Buffer.from(`<< ${contentDict} /Length ${content.length} >>\nstream\n`), content, Buffer.from("\nendstream")]),
  ]);
}

/** 256 MiB of content-stream operands, deflated to a few hundred KiB while it is written. */
async function inflationBomb(): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => deflate.on("end", resolve));
  const chunk = Buffer.from("0 ".repeat(32 * 1024));
  for (let i = 0; i < 4096; i++) if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once("drain", resolve));
  deflate.end();
  await done;
  return onePage("/Filter /FlateDecode", Buffer.concat(out));
}

/** Arrays nested 200,000 deep as the page's resources. */
function nestingBomb(): Buffer {
  const depth = 200_000;
  return onePage("", Buffer.from("BT /F1 12 Tf 50 700 Td (nichts) Tj ET"), `<< /X ${"[".repeat(depth)}${"]".repeat(depth)} >>`);
}

describe("imprints and contact sheets published as PDFs", () => {
  it("reads a linked imprint PDF written by a real PDF writer; its address ranks as the site's own and the source names the PDF", async () => {
    const imprint = await writePdf(["Impressum", "Muster Recht GmbH, Hauptstrasse 1, 9490 Vaduz", "Geschaeftsfuehrer: Max Muster", "E-Mail: kanzlei@muster-recht.li"], { title: "Impressum Muster Recht" });
    const sites = await startFixtureSites({
      "muster-recht.li": {
        "/": '<h1>Muster Recht</h1><p>Ihre Kanzlei in Vaduz.</p><a href="/files/impressum.pdf">Impressum (PDF)</a> <a href="/files/speisekarte.pdf">Menu</a>',
        "/files/impressum.pdf": pdf(imprint),
        "/files/speisekarte.pdf": pdf(await writePdf(["nobody@muster-recht.li"])),
      },
    });
    const t = instance();
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("muster-recht.li"), { name: "Muster Recht" })], { signal: never });
    const lead = Lead.parse(run.leads[0]);
    expect(lead.email).toBe("kanzlei@muster-recht.li");
    expect(lead.businessSources?.[0]).toEqual({ url: sites.url("muster-recht.li", "/files/impressum.pdf"), title: "Impressum Muster Recht (PDF)", pdf: true });
    // Only PDFs whose link says imprint, contact or price list are read.
    expect(sites.requests.some((r) => r.path === "/files/speisekarte.pdf")).toBe(false);
  });

  it("reads a price list PDF by its path, past filler pages, when the site's pages have no address", async () => {
    const prices = await writePdf(["Preise 2026", "Haarschnitt 30 CHF", "Termine: salon@haar-studio.li"], { page: 3 });
    const sites = await startFixtureSites({
      "haar-studio.li": { "/": '<p>Willkommen</p><a href="/downloads/preisliste-2026.pdf">Download</a>', "/downloads/preisliste-2026.pdf": { headers: { "content-type": "application/octet-stream" }, body: prices } },
    });
    const t = instance();
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("haar-studio.li"))], { signal: never });
    expect(run.leads[0]!.email).toBe("salon@haar-studio.li");
    expect(run.leads[0]!.businessSources?.[0]).toMatchObject({ title: "preisliste-2026.pdf (PDF)", pdf: true });
  });

  it("does not read a PDF on another site, nor when the pages already gave a good address", async () => {
    const other = await startFixtureSites({ "elsewhere.li": { "/impressum.pdf": pdf(await writePdf(["x@elsewhere.li"])) } });
    const sites = await startFixtureSites({
      "no-pdf.li": { "/": `<a href="${other.url("elsewhere.li", "/impressum.pdf")}">Impressum</a>` },
      "has-mail.li": { "/": '<p>info@has-mail.li</p><a href="/impressum.pdf">Impressum</a>', "/impressum.pdf": pdf(await writePdf(["y@has-mail.li"])) },
    });
    const t = instance();
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("no-pdf.li")), placeLead("2", sites.url("has-mail.li"))], { signal: never });
    expect(run.leads.map((l) => l.email)).toEqual([null, "info@has-mail.li"]);
    expect(other.hits()).toBe(0);
    expect(sites.requests.some((r) => r.path === "/impressum.pdf")).toBe(false);
  });

  it("a PDF bomb (a stream inflating to 256 MiB, arrays nested 200,000 deep) fails that document only: the site's other PDF and the next site are read", async () => {
    const contact = await writePdf(["Kontakt", "buero@bomb-site.li"]);
    const sites = await startFixtureSites({
      "bomb-site.li": { "/": '<a href="/impressum.pdf">Impressum</a> <a href="/kontakt.pdf">Kontakt</a>', "/impressum.pdf": pdf(await inflationBomb()), "/kontakt.pdf": pdf(contact) },
      "nested-site.li": { "/": '<a href="/impressum.pdf">Impressum</a> <a href="/kontakt.pdf">Kontaktblatt</a>', "/impressum.pdf": pdf(nestingBomb()), "/kontakt.pdf": pdf(await writePdf(["info@nested-site.li"])) },
      "after.li": { "/": '<a href="/impressum.pdf">Impressum</a>', "/impressum.pdf": pdf(await writePdf(["hallo@after.li"])) },
    });
    const t = instance();
    const leads = ["bomb-site.li", "nested-site.li"].map((host, i) => placeLead(String(i), sites.url(host)));
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(run.leads.map((l) => [l.email, l.enrichmentError, l.enrichmentPending])).toEqual([
      ["buero@bomb-site.li", undefined, undefined],
      ["info@nested-site.li", undefined, undefined],
    ]);
    const next = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("9", sites.url("after.li"))], { signal: never });
    expect(next.leads[0]!.email).toBe("hallo@after.li");
  }, 60_000);

  it("the fetcher caps a PDF at 5 MiB counted while it downloads (no length declared) and refuses a body that is not a PDF", async () => {
    const sites = await startFixtureSites({
      "big.li": {
        "/huge.pdf": (_req: IncomingMessage, res: ServerResponse) => {
          res.writeHead(200, { "content-type": "application/pdf" });
          res.write("%PDF-1.7\n");
          const block = Buffer.alloc(256 * 1024, 32);
          let sent = 0;
          const more = () => {
            while (sent < PDF_MAX_BYTES * 4 && !res.destroyed) {
              sent += block.length;
              if (!res.write(block)) return void res.once("drain", more);
            }
            res.end();
          };
          more();
        },
        "/fake.pdf": { headers: { "content-type": "application/pdf" }, body: "<html>not a pdf</html>" },
      },
    });
    const fetcher = new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "test/1", lookup: fixtureLookup });
    const huge = await fetcher.fetchPage(sites.url("big.li", "/huge.pdf"), { pdf: true }).catch((e: unknown) => e);
    expect(huge).toBeInstanceOf(FetchError);
    expect((huge as FetchError).reason).toBe("too_large");
    const fake = await fetcher.fetchPage(sites.url("big.li", "/fake.pdf"), { pdf: true }).catch((e: unknown) => e);
    expect((fake as FetchError).reason).toBe("not_text");
    // A PDF is not a web page: the page fetch still refuses it.
    const asPage = await fetcher.fetchPage(sites.url("big.li", "/fake.pdf")).catch((e: unknown) => e);
    expect((asPage as FetchError).reason).toBe("not_text");
  });
});
