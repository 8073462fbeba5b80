import { extractPage, type PageFacts } from "./page-facts.js";

/** One extraction task, as the pool sends it (the bytes' buffer is transferred, not copied). */
export interface ExtractionTask {
  bytes: Uint8Array;
  contentType: string;
  url: string;
  /** Milliseconds of reading this page may take before it is given up. */
  budgetMs: number;
}

/** The worker's entry (piscina calls the default export with each task). */
export default function extract(task: ExtractionTask): PageFacts {
  return extractPage(task.bytes, task.contentType, task.url, performance.now() + task.budgetMs);
}
