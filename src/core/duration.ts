/**
 * The delay of a follow-up step: an ISO 8601 duration (docs/api.md, "Sequences"). Only
 * the units of a fixed length are accepted — weeks, days, hours, minutes, seconds —
 * because a "month" or a "year" has no single length to wait; `P1M` is refused with a
 * hint instead of being guessed at. Days are 24 hours: a delay is elapsed time after the
 * previous step was sent, and the send window (in the recipient's zone) takes care of
 * the local clock.
 */

export const MIN_DELAY_MS = 60_000;
export const MAX_DELAY_MS = 60 * 24 * 60 * 60_000;

const PATTERN = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const UNIT_MS = [7 * 24 * 3_600_000, 24 * 3_600_000, 3_600_000, 60_000, 1_000];

/** The duration in milliseconds, or a sentence saying why it is not a delay (for a 400). */
export function parseDelay(text: string): { ms: number } | { error: string } {
  const value = text.trim().toUpperCase();
  const match = PATTERN.exec(value);
  if (!match || value === "P" || value.endsWith("T")) {
    if (/^P(?:\d+Y)?(?:\d+M)?/.test(value) && /^P[^T]*[YM]/.test(value)) {
      return { error: "must not use years or months (their length varies): write days, e.g. P30D" };
    }
    return { error: "must be an ISO 8601 duration such as PT1M, PT4H, P3D or P1W" };
  }
  const ms = match.slice(1).reduce((sum, part, i) => sum + (part ? Number(part) * UNIT_MS[i]! : 0), 0);
  if (ms < MIN_DELAY_MS) return { error: "must be at least PT1M (one minute)" };
  if (ms > MAX_DELAY_MS) return { error: "must be at most P60D (60 days)" };
  return { ms };
}

/** The delay in milliseconds of a duration already validated. */
export function delayMs(text: string): number {
  const parsed = parseDelay(text);
  if ("error" in parsed) throw new Error(`delay ${text} ${parsed.error}`);
  return parsed.ms;
}
