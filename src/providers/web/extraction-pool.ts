import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { compiledWorkerFile } from "../../core/task-threads.js";
import { decodeCapped, type ContentCoding } from "./content-coding.js";
import type { ExtractionTask } from "./extract/extract-worker.js";
import { extractPage, type PageFacts } from "./extract/page-facts.js";
import { extractPdf, PDF_LIMITS } from "./extract/pdf-facts.js";

/** A body still encoded as sent (gzip, deflate, br), to be decoded to at most `maxBytes` before it is read. */
export interface EncodedBody {
  coding: ContentCoding;
  maxBytes: number;
}

/** Turns a fetched page into its facts. */
export interface PageExtractor {
  extract(bytes: Uint8Array, contentType: string, url: string, signal?: AbortSignal, encoded?: EncodedBody): Promise<PageFacts>;
  /** A PDF's facts (its text read as a page); extractors without it read no PDFs. */
  extractPdf?(bytes: Uint8Array, url: string, signal?: AbortSignal): Promise<PageFacts>;
}

/** Time one PDF may take in its worker: past it the worker is terminated (pdf.js cannot be interrupted otherwise). */
export const PDF_BUDGET_MS = 5000;

export class ExtractionError extends Error {
  override name = "ExtractionError";
}

export interface ExtractionPoolOptions {
  /** Worker threads (default: one per core but one, at least 1 and at most 4). */
  threads?: number;
  /** Reading budget of one page in its worker, in milliseconds (default 3000). */
  pageBudgetMs?: number;
  /** Old-generation heap limit of one worker in MiB (default 64): a page that needs more kills only its worker. */
  maxHeapMb?: number;
  /**
   * The ES module whose default export runs each task (default: the compiled
   * `extract/extract-worker.js`); tests give a module graph of their own.
   */
  workerModule?: string;
}

/**
 * Decoding, parsing and extraction off the event loop: a piscina pool of worker threads runs
 * `extractPage` for every fetched page (after undoing its gzip/deflate/br encoding there), so a hostile page (2 MiB of one character, a
 * million links) costs a worker some milliseconds and never stalls the server's
 * requests. Each page has a reading budget checked between parser chunks, each worker a
 * heap limit; a task whose caller gives up (its AbortSignal) is dropped from the queue, or
 * its worker terminated if it is running.
 *
 * Workers load the compiled `extract/extract-worker.js` through a CommonJS entry
 * (`extract/esm-worker-entry.cts`) that import()s it: piscina would require() it, and a
 * worker terminated while Node links a require()d ES module aborts the whole process.
 * Running from the TypeScript sources (vitest), the compiled files do not exist beside
 * this one, so the build's copies in `dist/` are used: the test run's global setup
 * (test/global-setup.ts) writes them first.
 */
export class ExtractionPool implements PageExtractor {
  private readonly pool: Piscina;
  private readonly pageBudgetMs: number;

  constructor(options: ExtractionPoolOptions = {}) {
    // One core stays free for the event loop: on a 2-core machine, two busy workers and the
    // main thread share two cores and /healthz waits its turn (bench/enrichment-hostile.js).
    const threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1));
    this.pageBudgetMs = options.pageBudgetMs ?? 3000;
    this.pool = new Piscina({
      filename: compiledWorkerFile("./extract/esm-worker-entry.cjs", import.meta.url),
      workerData: { module: options.workerModule ?? compiledWorkerFile("./extract/extract-worker.js", import.meta.url) },
      // All workers start at once (their module loading overlaps the first fetches) and
      // stay, so memory is paid once, up front (about 35 MB each), not in the middle of a
      // crawl; idle workers are unref'd, so they never keep a process alive.
      minThreads: threads,
      maxThreads: threads,
      // Small heaps on purpose: V8 lets a roomy old generation fill with the dead 2 MiB
      // strings of hostile pages before it collects; measured on the hostile-page fixture,
      // one worker's RSS grew 114 MB with V8's defaults and 84 MB at 48/8 (bench/enrichment-hostile.js).
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 64, maxYoungGenerationSizeMb: 8 },
    });
  }

  async extract(bytes: Uint8Array, contentType: string, url: string, signal?: AbortSignal, encoded?: EncodedBody): Promise<PageFacts> {
    // The body's buffer moves to the worker when the body owns all of it (bodies over 4 KiB
    // do); a slice of a shared buffer (Node's pool for small ones) is copied first.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    const task: ExtractionTask = { bytes: own, contentType, url, budgetMs: this.pageBudgetMs, ...(encoded ? { encoded } : {}) };
    try {
      return (await this.pool.run(task, { signal: signal ?? null, transferList: [own.buffer as ArrayBuffer] })) as PageFacts;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new ExtractionError(`${url} could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * A PDF read in a worker, within PDF_LIMITS (pages, characters) and PDF_BUDGET_MS: past
   * the time the task is aborted, which terminates its worker; a PDF that fills the
   * worker's heap kills only that worker. Either way only this document fails.
   */
  async extractPdf(bytes: Uint8Array, url: string, signal?: AbortSignal): Promise<PageFacts> {
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    const task: ExtractionTask = { bytes: own, contentType: "application/pdf", url, budgetMs: PDF_BUDGET_MS, pdf: PDF_LIMITS };
    const limit = AbortSignal.timeout(PDF_BUDGET_MS + 500);
    try {
      return (await this.pool.run(task, { signal: signal ? AbortSignal.any([signal, limit]) : limit, transferList: [own.buffer as ArrayBuffer] })) as PageFacts;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (limit.aborted) throw new ExtractionError(`${url} could not be read within ${PDF_BUDGET_MS} ms`);
      throw new ExtractionError(`${url} could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

/** Extraction in the calling thread (small tools and tests of extraction itself; never the server). */
export const inlineExtractor: PageExtractor = {
  async extract(bytes, contentType, url, _signal, encoded) {
    return extractPage(encoded ? (await decodeCapped(bytes, encoded.coding, encoded.maxBytes)).body : bytes, contentType, url);
  },
  async extractPdf(bytes, url) {
    return extractPdf(bytes, url);
  },
};

let shared: ExtractionPool | undefined;

/** One pool per process for callers that do not bring their own (idle workers do not keep the process alive). */
export function sharedExtractionPool(): ExtractionPool {
  shared ??= new ExtractionPool();
  return shared;
}
