import type { ErrorStyle } from "../core/contract/index.js";
import { AppError, isAppError } from "../core/errors.js";

export type Logger = (line: string) => void;

/** Headers every API answer carries. */
export const API_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...API_HEADERS, ...headers },
  });
}

/**
 * The one place an error becomes an HTTP answer. Unexpected errors are logged (without
 * request data) and answered with a generic 500: no stack, SQL or path ever leaves.
 */
export function errorResponse(err: unknown, style: ErrorStyle, log: Logger, extra: () => Record<string, unknown> = () => ({})): Response {
  const appError = isAppError(err) ? err : undefined;
  if (!appError) log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  const e = appError ?? new AppError("internal_error", "internal error");
  const body: Record<string, unknown> = { error: e.message };
  if (style === "coded") {
    let fallback: Record<string, unknown> = {};
    try {
      fallback = extra();
    } catch {
      // The extras are best effort: the error itself must still be answered.
    }
    Object.assign(body, { code: e.code }, fallback, e.body);
  }
  // RFC 6750: a 401 names the scheme the client should authenticate with.
  const headers = e.status === 401 ? { "www-authenticate": `Bearer realm="outreach"`, ...e.headers } : e.headers;
  return jsonResponse(e.status, body, headers);
}
