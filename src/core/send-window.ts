import { DateTime, IANAZone } from "luxon";

/**
 * Send windows (docs/api.md, "Sequences: send windows"): the days and local hours a
 * message may go out, in the recipient's time zone. Local time is computed with luxon over
 * the runtime's IANA database (Intl), so a window keeps its local hours across daylight
 * saving changes: "09:00" is 09:00 on the Monday after the clocks moved, not an hour off.
 */

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface SendWindow {
  days: Weekday[];
  /** "HH:MM", local, inclusive. */
  start: string;
  /** "HH:MM", local, exclusive; later than `start` on the same day. */
  end: string;
  /** `contact`: each contact's own zone (else the brand's); or one IANA name for everyone. */
  timeZone: string;
}

/** Whether `name` is an IANA time zone this runtime knows (`Europe/Berlin`, `UTC`). Offsets such as `+02:00` are not zones. */
export function isTimeZone(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) && IANAZone.isValidZone(name);
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h! * 60 + m!;
}

/**
 * The earliest instant at or after `at` inside the window, in `zone`. `at` itself when it
 * is inside. A local opening time that a spring-forward skips (02:30 on that Sunday)
 * opens at the first local time after the gap.
 */
export function nextOpening(at: Date, window: Pick<SendWindow, "days" | "start" | "end">, zone: string): Date {
  const local = DateTime.fromJSDate(at, { zone });
  const open = minutesOf(window.start);
  const close = minutesOf(window.end);
  const days = new Set(window.days);
  for (let i = 0; i <= 7; i++) {
    const day = local.startOf("day").plus({ days: i });
    if (!days.has(WEEKDAYS[day.weekday - 1]!)) continue;
    const opensAt = day.set({ hour: Math.floor(open / 60), minute: open % 60 });
    const closesAt = day.set({ hour: Math.floor(close / 60), minute: close % 60 });
    if (local < opensAt) return opensAt.toJSDate();
    if (local < closesAt) return at;
  }
  // Unreachable with at least one day: the same weekday a week later always opens later.
  throw new Error("a send window needs at least one day");
}
