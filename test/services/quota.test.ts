import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";

describe("quota service", () => {
  it("refunds a reservation at most once and never below zero", () => {
    const instance = createTestInstance({ plan: "free" });
    const quota = instance.services.quota;
    const a = quota.reserve(instance.teamId);
    quota.reserve(instance.teamId);
    expect(quota.current(instance.teamId).used).toBe(2);
    expect(quota.refund(a.id)).toBe(true);
    expect(quota.refund(a.id)).toBe(false);
    expect(quota.current(instance.teamId)).toMatchObject({ used: 1, remaining: 24 });
    expect(quota.refund("srch_unknown")).toBe(false);
  });

  it("counts per UTC day and reports the next midnight UTC as resetAt", () => {
    const instance = createTestInstance({ plan: "free" });
    instance.clock.set("2026-11-22T23:59:59.000Z");
    const quota = instance.services.quota;
    expect(quota.reserve(instance.teamId).quota).toMatchObject({ used: 1, resetAt: "2026-11-23T00:00:00.000Z" });
    instance.clock.set("2026-11-23T00:00:00.000Z");
    expect(quota.current(instance.teamId)).toMatchObject({ used: 0, remaining: 25, resetAt: "2026-11-24T00:00:00.000Z" });
  });

  it("a refund of yesterday's search gives the unit back to yesterday, not today", () => {
    const instance = createTestInstance({ plan: "free" });
    const quota = instance.services.quota;
    const r = quota.reserve(instance.teamId);
    instance.clock.set("2026-11-23T08:00:00.000Z");
    quota.reserve(instance.teamId);
    quota.refund(r.id);
    expect(quota.current(instance.teamId).used).toBe(1);
  });
});
