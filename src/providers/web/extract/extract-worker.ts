import { setPriority } from "node:os";
import { decodeCapped, type ContentCoding } from "../content-coding.js";
import { extractPage, type PageFacts } from "./page-facts.js";
import { extractPdf, type PdfLimits } from "./pdf-facts.js";

// Lower this thread's scheduling priority (on Linux, setpriority on pid 0 applies to the
// calling thread only): when the machine is busy, the server's event loop runs first and
// the reading of pages waits. Not permitted everywhere: then the thread runs as it is.
try {
  setPriority(10);
} catch {
  // unchanged priority
}

/** One extraction task, as the pool sends it (the bytes' buffer is transferred, not copied). */
export interface ExtractionTask {
  bytes: Uint8Array;
  contentType: string;
  url: string;
  /** Milliseconds of reading this page may take before it is given up. */
  budgetMs: number;
  /** The bytes are still encoded as sent: decoded here first, to at most `maxBytes` (a compression bomb inflates in this thread). */
  encoded?: { coding: ContentCoding; maxBytes: number };
  /** A PDF document (imprint, contact sheet) rather than a web page, read within these limits. */
  pdf?: PdfLimits;
}

/** The worker's entry (piscina calls the default export with each task). */
export default function extract(task: ExtractionTask): PageFacts | Promise<PageFacts> {
  const deadline = performance.now() + task.budgetMs;
  if (task.pdf) return extractPdf(task.bytes, task.url, task.pdf, deadline);
  if (task.encoded) return decodeCapped(task.bytes, task.encoded.coding, task.encoded.maxBytes).then(({ body }) => extractPage(body, task.contentType, task.url, deadline));
  return extractPage(task.bytes, task.contentType, task.url, deadline);
}
