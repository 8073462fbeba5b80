import { describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "../../src/core/clock.js";

describe("clocks", () => {
  it("the manual clock's sleep moves it at once and tells its listeners", async () => {
    const clock = new ManualClock("2026-11-22T10:00:00.000Z");
    const slept: number[] = [];
    clock.onSleep((ms) => slept.push(ms));
    await clock.sleep(90_000);
    expect(clock.now().toISOString()).toBe("2026-11-22T10:01:30.000Z");
    expect(slept).toEqual([90_000]);
    const stop = new AbortController();
    stop.abort();
    await expect(clock.sleep(1000, stop.signal)).rejects.toThrow();
    expect(clock.now().toISOString()).toBe("2026-11-22T10:01:30.000Z");
  });

  it("the system clock's sleep ends early with an AbortError when its signal aborts", async () => {
    const stop = new AbortController();
    const sleeping = systemClock.sleep(60_000, stop.signal);
    stop.abort();
    await expect(sleeping).rejects.toMatchObject({ name: "AbortError" });
    await expect(systemClock.sleep(1)).resolves.toBeUndefined();
  });
});
