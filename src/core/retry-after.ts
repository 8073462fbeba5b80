/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date, as milliseconds from
 * `now`; undefined when absent or unreadable. The one reading of it, for every client we
 * have: the place sources and geocoder, the AI model's client, the CLI's API client.
 */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** `retryAfterMs` in whole seconds, rounded up (a wait never ends before the server's time). */
export function retryAfterSeconds(value: string | null | undefined, now: number = Date.now()): number | undefined {
  const ms = retryAfterMs(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
