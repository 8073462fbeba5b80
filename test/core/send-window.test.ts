import { describe, expect, it } from "vitest";
import { parseDelay } from "../../src/core/duration.js";
import { isTimeZone, nextOpening } from "../../src/core/send-window.js";
import { timeZoneAt } from "../../src/core/time-zone-lookup.js";

const WORKDAYS = { days: ["mon", "tue", "wed", "thu", "fri"] as ("mon" | "tue" | "wed" | "thu" | "fri")[], start: "09:00", end: "17:00" };
const opening = (zone: string) => (iso: string) => nextOpening(new Date(iso), WORKDAYS, zone).toISOString();

describe("send windows keep their local hours across daylight saving changes", () => {
  it("Europe/Berlin, March: Friday evening (CET) waits for Monday 09:00 CEST, an hour earlier in UTC", () => {
    const at = opening("Europe/Berlin");
    // Fri 2026-03-27 18:00 CET = 17:00Z; the clocks go forward on Sun 2026-03-29.
    expect(at("2026-03-27T17:00:00Z")).toBe("2026-03-30T07:00:00.000Z");
    // The Friday before at 08:00 CET waits for 09:00 CET (08:00Z).
    expect(at("2026-03-27T07:00:00Z")).toBe("2026-03-27T08:00:00.000Z");
    // Inside the window: now.
    expect(at("2026-03-30T14:59:00Z")).toBe("2026-03-30T14:59:00.000Z");
    // 17:00 CEST is the end (exclusive): the next morning.
    expect(at("2026-03-30T15:00:00Z")).toBe("2026-03-31T07:00:00.000Z");
  });

  it("Europe/Berlin, October: Friday evening (CEST) waits for Monday 09:00 CET, an hour later in UTC", () => {
    const at = opening("Europe/Berlin");
    // Fri 2026-10-23 18:00 CEST = 16:00Z; the clocks go back on Sun 2026-10-25.
    expect(at("2026-10-23T16:00:00Z")).toBe("2026-10-26T08:00:00.000Z");
  });

  it("America/New_York, March and November", () => {
    const at = opening("America/New_York");
    // Fri 2026-03-06 18:00 EST = 23:00Z; DST starts Sun 2026-03-08: Monday 09:00 EDT = 13:00Z.
    expect(at("2026-03-06T23:00:00Z")).toBe("2026-03-09T13:00:00.000Z");
    // Fri 2026-10-30 18:00 EDT = 22:00Z; DST ends Sun 2026-11-01: Monday 09:00 EST = 14:00Z.
    expect(at("2026-10-30T22:00:00Z")).toBe("2026-11-02T14:00:00.000Z");
  });

  it("a window on the very Sunday of the change opens at its local hour, and a skipped opening at the first time after the gap", () => {
    const sunday = { days: ["sun" as const], start: "09:00", end: "12:00" };
    // Sun 2026-03-29 00:30 CET (23:30Z Saturday): 09:00 CEST = 07:00Z.
    expect(nextOpening(new Date("2026-03-28T23:30:00Z"), sunday, "Europe/Berlin").toISOString()).toBe("2026-03-29T07:00:00.000Z");
    // 02:30 does not exist that night in Berlin: it opens after the gap, never before 02:30 local.
    const gap = nextOpening(new Date("2026-03-28T23:30:00Z"), { days: ["sun"], start: "02:30", end: "04:00" }, "Europe/Berlin");
    expect(gap.getTime()).toBeGreaterThanOrEqual(new Date("2026-03-29T01:00:00Z").getTime());
    expect(gap.getTime()).toBeLessThan(new Date("2026-03-29T02:00:00Z").getTime());
  });

  it("knows IANA zones and refuses offsets and made-up names", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("+02:00")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});

describe("follow-up delays", () => {
  it.each([
    ["PT1M", 60_000],
    ["P60D", 60 * 86_400_000],
    ["P1W", 7 * 86_400_000],
    ["P2DT3H", 2 * 86_400_000 + 3 * 3_600_000],
    ["pt4h", 4 * 3_600_000],
  ])("%s is %i ms", (text, ms) => {
    expect(parseDelay(text)).toEqual({ ms });
  });

  it.each([
    ["PT30S", /at least PT1M/],
    ["P61D", /at most P60D/],
    ["1 day", /ISO 8601 duration/],
    ["P", /ISO 8601 duration/],
    ["PT", /ISO 8601 duration/],
    ["P1M", /years or months/],
    ["P1Y", /years or months/],
  ])("%s is refused", (text, why) => {
    const parsed = parseDelay(text);
    expect("error" in parsed && parsed.error).toMatch(why);
  });
});

describe("a lead's time zone from its coordinates", () => {
  it("names the zone of the country the business is in", () => {
    expect(timeZoneAt(47.141, 9.5209)).toBe("Europe/Vaduz");
    expect(timeZoneAt(52.52, 13.405)).toBe("Europe/Berlin");
    expect(timeZoneAt(40.7128, -74.006)).toBe("America/New_York");
    expect(timeZoneAt(Number.NaN, 1)).toBeNull();
    expect(timeZoneAt(91, 0)).toBeNull();
  });
});
