import { isTimeZone, nextOpening, type SendWindow } from "../../core/send-window.js";

/**
 * The zone a contact's window is read in: the window's own zone, or with `contact` the
 * contact's zone, else the brand's (docs/api.md, "Sequences: send windows").
 */
export function windowZone(window: SendWindow, contactZone: string | null, brandZone: string): string {
  if (window.timeZone !== "contact") return window.timeZone;
  return contactZone && isTimeZone(contactZone) ? contactZone : brandZone;
}

/** Undefined when a step may go out now; otherwise when it may, and why it waits. */
export function sendWindowWait(window: SendWindow | null, contactZone: string | null, brandZone: string, now: Date): { at: string; reason: string } | undefined {
  if (!window) return undefined;
  const zone = windowZone(window, contactZone, brandZone);
  const opening = nextOpening(now, window, zone);
  if (opening.getTime() <= now.getTime()) return undefined;
  const at = opening.toISOString();
  return { at, reason: `waiting: outside the send window (${window.days.join(",")} ${window.start}-${window.end} ${zone}); it opens at ${at}` };
}
