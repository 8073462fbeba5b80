import { extractPage, type PageFacts } from "./page-facts.js";

/** Limits of one PDF's reading (the download is capped by the fetcher, the time by the pool). */
export interface PdfLimits {
  /** Pages read, from the first: imprints and contact sheets are short; a catalogue's page 400 is not read. */
  maxPages: number;
  /** Characters of text kept in all (the HTML extractors read at most this much). */
  maxChars: number;
}

export const PDF_LIMITS: PdfLimits = { maxPages: 20, maxChars: 400_000 };

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * A PDF's facts, as if it were a page: its text (lines kept) and its link annotations
 * (`mailto:` and web links) are written as a small HTML document and read by the same
 * extractors as every page, so addresses, owners and profiles in an imprint PDF are found
 * and ranked exactly as on an imprint page.
 *
 * Runs in an extraction worker (the pool's "pdf" task): unpdf (pdf.js's serverless build)
 * is loaded there on the first PDF only. A hostile PDF (deep nesting, a stream that
 * inflates without end) costs that worker its heap limit or the pool's time limit, and the
 * pool replaces it: that document fails, nothing else.
 */
export async function extractPdf(bytes: Uint8Array, url: string, limits: PdfLimits = PDF_LIMITS, deadline = Number.POSITIVE_INFINITY): Promise<PageFacts> {
  const { getDocumentProxy } = await import("unpdf");
  // No eval, no font loading, no worker of its own: only the text layer is wanted.
  const pdf = await getDocumentProxy(bytes, { isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 });
  try {
    const blocks: string[] = [];
    let chars = 0;
    const pages = Math.min(pdf.numPages, limits.maxPages);
    for (let number = 1; number <= pages && chars < limits.maxChars && performance.now() < deadline; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let line = "";
      const flush = () => {
        if (line.trim()) blocks.push(`<p>${escapeHtml(line.trim())}</p>`);
        chars += line.length;
        line = "";
      };
      for (const item of content.items) {
        if (!("str" in item)) continue;
        line += item.str;
        if (item.hasEOL) flush();
        else if (item.str && !item.str.endsWith(" ")) line += " ";
        if (chars + line.length > limits.maxChars) break;
      }
      flush();
      for (const annotation of await page.getAnnotations()) {
        const target = (annotation as { url?: unknown }).url;
        if (typeof target === "string" && /^(?:mailto:|https?:)/i.test(target) && target.length <= 2048) blocks.push(`<p><a href="${escapeHtml(target)}">${escapeHtml(target)}</a></p>`);
      }
      page.cleanup();
    }
    const title = await pdfTitle(pdf, url);
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${blocks.join("\n")}</body></html>`;
    const facts = extractPage(new TextEncoder().encode(html), "text/html; charset=utf-8", url, deadline);
    // A PDF's "links" are its annotations: the crawler follows none of them as pages.
    return { ...facts, title, links: [], frames: [], refresh: undefined };
  } finally {
    await pdf.destroy();
  }
}

/** The document's own title when it has a usable one, else its file name; "(PDF)" says what it is. */
async function pdfTitle(pdf: { getMetadata(): Promise<{ info: unknown }> }, url: string): Promise<string> {
  let title = "";
  try {
    const info = (await pdf.getMetadata()).info as { Title?: unknown };
    if (typeof info.Title === "string") title = info.Title.replace(/\s+/g, " ").trim().slice(0, 200);
  } catch {
    // no metadata: the file name says it
  }
  if (!title) {
    const path = new URL(url).pathname;
    try {
      title = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1)).slice(0, 200);
    } catch {
      title = path.slice(path.lastIndexOf("/") + 1).slice(0, 200);
    }
  }
  return `${title || new URL(url).hostname} (PDF)`;
}
