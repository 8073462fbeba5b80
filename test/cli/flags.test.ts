import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/exit-codes.js";
import { choiceListFlag, durationFlag, intFlag, limitFlag, mutuallyExclusive, numberFlag, pagesFlag } from "../../src/cli/flags.js";
import { runCli } from "../helpers/cli.js";

describe("flag parsers", () => {
  it("intFlag: whole numbers within the bounds, a usage error naming the flag and the range otherwise", () => {
    expect(intFlag("--page", undefined)).toBeUndefined();
    expect(intFlag("--page", "3", { min: 1 })).toBe(3);
    expect(intFlag("--port", "0", { min: 0, max: 65535 })).toBe(0);
    expect(() => intFlag("--page", "0", { min: 1 })).toThrow(new UsageError('--page must be a whole number ≥ 1 (got "0")'));
    expect(() => intFlag("--limit", "101", { min: 1, max: 100 })).toThrow(/--limit must be a whole number from 1 to 100 \(got "101"\)/);
    for (const bad of ["1.5", "", "ten", "1e3", "0x10"]) expect(() => intFlag("--pages", bad), bad).toThrow(UsageError);
  });

  it("pagesFlag: --pages N, --all or one page; both together are refused naming both", async () => {
    expect(pagesFlag(undefined, undefined)).toBe(1);
    expect(pagesFlag("3", undefined)).toBe(3);
    expect(pagesFlag(undefined, true)).toBe(Number.POSITIVE_INFINITY);
    expect(() => pagesFlag("2", true)).toThrow(UsageError);
    const both = await runCli(["leads", "search", "--keywords", "cafe", "--lat", "47.14", "--lng", "9.52", "--pages", "2", "--all"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^error: --pages 2 contradicts --all \(which fetches every page\): give one of them$/m);
    expect(both.stdout).toBe("");
  });

  it("numberFlag and limitFlag", () => {
    expect(numberFlag("--lat", "47.14")).toBe(47.14);
    expect(() => numberFlag("--lat", "north")).toThrow('--lat must be a number (got "north")');
    expect(limitFlag("--max-contacts", "unlimited")).toBeNull();
    expect(limitFlag("--max-contacts", "0")).toBe(0);
    expect(limitFlag("--max-contacts", undefined)).toBeUndefined();
    expect(() => limitFlag("--max-contacts", "-1")).toThrow('--max-contacts must be a whole number ≥ 0 or "unlimited" (got "-1")');
  });

  it("durationFlag: ms, s, m and h, bare numbers as seconds", () => {
    expect(durationFlag("--timeout", "10m")).toBe(600_000);
    expect(durationFlag("--timeout", "250ms")).toBe(250);
    expect(durationFlag("--timeout", "1.5h")).toBe(5_400_000);
    expect(durationFlag("--timeout", "30")).toBe(30_000);
    expect(() => durationFlag("--timeout", "-1s")).toThrow(/--timeout must be a duration/);
    expect(() => durationFlag("--timeout", "soon")).toThrow(/--timeout must be a duration/);
  });

  it("mutuallyExclusive: at most one of the flags given (false and undefined are not given)", () => {
    expect(() => mutuallyExclusive({ "--json": true, "--csv": undefined, "--ndjson": false })).not.toThrow();
    expect(() => mutuallyExclusive({ "--json": true, "--ndjson": undefined, "--csv": true })).toThrow(
      new UsageError("use only one of --json, --ndjson, --csv (got --json and --csv)"),
    );
    expect(() => mutuallyExclusive({ "--all": true, "--page": "2" }, "--all walks every page: leave out --page")).toThrow("--all walks every page");
  });

  it("choiceListFlag: a comma list of allowed values, naming the ones that are not", () => {
    expect(choiceListFlag("--status", " active,unsubscribed ", ["active", "unsubscribed"])).toEqual(["active", "unsubscribed"]);
    expect(() => choiceListFlag("--status", "active,gone", ["active", "unsubscribed"])).toThrow('--status must be a comma list of active, unsubscribed (got "gone")');
  });
});
