/**
 * How a fetch fails, and the timing helpers that turn a phase's deadline or the caller's
 * cancellation into one of those failures (shared by the fetcher, its connector and its
 * body reader).
 */

export type FetchFailure =
  | "bad_url"
  | "blocked"
  | "robots"
  | "timeout"
  | "too_large"
  | "not_text"
  | "http_status"
  | "too_many_redirects"
  | "redirect_loop"
  | "network"
  | "tls"
  | "unreadable"
  | "aborted";

export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    readonly reason: FetchFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Certificate and handshake failures are told apart from other network errors: the user can act on them. */
const TLS_CODES = /^(?:CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|HOSTNAME_MISMATCH|EPROTO$)/;

export function classifyRequestError(url: URL, err: NodeJS.ErrnoException): FetchError {
  const code = err.code ?? "";
  if (TLS_CODES.test(code)) return new FetchError("tls", `${url.host}: TLS failed (${code}${err.message && !err.message.includes(code) ? `: ${err.message}` : ""})`);
  return new FetchError("network", `${url.host}: ${code || err.message}`);
}

/** The caller's signal, ended at the latest after `timeoutMs`. */
export function withTimeout(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * One phase's limits (connect, headers, body): `fail` with the phase's own timeout error
 * after `ms`, or with the abort error when `signal` aborts. Returns what stops both.
 */
export function watchPhase(signal: AbortSignal, ms: number, timeoutError: () => FetchError, fail: (err: FetchError) => void): () => void {
  const timer = setTimeout(() => fail(timeoutError()), ms);
  const onAbort = () => fail(abortError(signal));
  signal.addEventListener("abort", onAbort, { once: true });
  return () => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  };
}

export function abortError(signal: AbortSignal): FetchError {
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === "TimeoutError" ? new FetchError("timeout", "the page took longer than the time allowed") : new FetchError("aborted", "the fetch was cancelled");
}
