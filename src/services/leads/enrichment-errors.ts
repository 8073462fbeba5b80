import type { EnrichmentError, EnrichmentErrorCode } from "../../core/schemas/lead.js";
import { FetchError, type FetchFailure } from "../../providers/web/safe-fetcher.js";

const CODE_OF: Record<FetchFailure, EnrichmentErrorCode> = {
  bad_url: "bad_url",
  blocked: "blocked",
  robots: "robots",
  timeout: "timeout",
  too_large: "too_large",
  not_text: "not_text",
  http_status: "http_status",
  too_many_redirects: "redirects",
  redirect_loop: "redirects",
  network: "network",
  tls: "tls",
  unreadable: "unreadable",
  aborted: "timeout",
};

/** Why a site could not be read, for the lead's `enrichmentError` (no stack, no internal path). */
export function enrichmentErrorOf(err: unknown): EnrichmentError {
  if (err instanceof FetchError) {
    const error: EnrichmentError = { code: CODE_OF[err.reason], message: err.message.slice(0, 500) };
    if (err.reason === "http_status" && err.status !== undefined && err.status >= 100 && err.status <= 999) error.status = err.status;
    return error;
  }
  return { code: "error", message: "the website could not be read" };
}

/** A cached failure: JSON of an EnrichmentError, or (rows written before it existed) a bare FetchFailure name. */
export function parseCachedFailure(text: string | null): EnrichmentError {
  if (text?.startsWith("{")) {
    try {
      const parsed = JSON.parse(text) as EnrichmentError;
      if (typeof parsed.code === "string" && typeof parsed.message === "string") return parsed;
    } catch {
      // fall through
    }
  }
  const code = text && text in CODE_OF ? CODE_OF[text as FetchFailure] : "error";
  return { code, message: `the website could not be read recently (${text ?? "unknown reason"}); it will be tried again later` };
}
