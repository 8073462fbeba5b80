/**
 * Requests to the outside services the place sources and the geocoder use (Google Places,
 * Overpass, Nominatim, Geofabrik): one timeout, the caller's abort signal, and failures as
 * `ServiceError`s whose message names the service and what went wrong, never a bare
 * "fetch failed".
 */

/** A failed call to an outside service: HTTP status (when there was an answer) and when to try again. */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(
    message: string,
    readonly status?: number,
    /** Seconds from the answer's `Retry-After`, when it had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * `fetch` with a timeout that also follows `signal`. A timeout or network failure becomes a
 * `ServiceError` naming `service`; the caller's own abort stays an AbortError.
 */
export async function serviceFetch(service: string, url: string | URL, init: RequestInit & { timeoutMs: number; signal?: AbortSignal }): Promise<Response> {
  const { timeoutMs, signal, ...rest } = init;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await fetch(url, { ...rest, signal: combined });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (timeout.aborted) throw new ServiceError(`${service}: no answer within ${Math.round(timeoutMs / 1000)} s`);
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
    throw new ServiceError(`${service}: request failed (${cause})`);
  }
}
