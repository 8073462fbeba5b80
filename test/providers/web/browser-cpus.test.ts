import { describe, expect, it } from "vitest";
import { browserCpus, parseBrowserCpus, parseCpuList } from "../../../src/providers/web/browser-cpus.js";
import { loadServerConfig } from "../../../src/services/config.js";

describe("the browser's cores (OUTREACH_BROWSER_CPUS, issue 26: the server keeps a core during a browser crawl)", () => {
  it("parses auto, all and taskset-style lists, and names what is wrong otherwise", () => {
    expect(parseBrowserCpus(undefined)).toBe("auto");
    expect(parseBrowserCpus(" AUTO ")).toBe("auto");
    expect(parseBrowserCpus("all")).toBe("all");
    expect(parseBrowserCpus("0-2,5")).toEqual([0, 1, 2, 5]);
    expect(parseBrowserCpus("3,1,1")).toEqual([1, 3]);
    for (const bad of ["2-0", "x", "1,,2", "0-5000", "-1"]) expect(() => parseBrowserCpus(bad)).toThrow(/OUTREACH_BROWSER_CPUS must be auto, all or a list/);
    expect(parseCpuList("0-1")).toEqual([0, 1]);
  });

  it("a bad value is a configuration error at start, not a failure of every render", () => {
    expect(() => loadServerConfig({ OUTREACH_BROWSER_CPUS: "first two" })).toThrow(/OUTREACH_BROWSER_CPUS/);
    expect(loadServerConfig({ OUTREACH_BROWSER_CPUS: "0" }).browserCpus).toEqual([0]);
    expect(loadServerConfig({}).browserCpus).toBe("auto");
  });

  it("auto leaves the server's highest core to the server; one core, all, or a list naming none of the server's cores confine nothing", () => {
    expect(browserCpus("auto", [0, 1])).toEqual([0]);
    expect(browserCpus("auto", [0, 1, 2, 3])).toEqual([0, 1, 2]);
    expect(browserCpus("auto", [4, 6, 7])).toEqual([4, 6]);
    expect(browserCpus("auto", [0])).toBeUndefined();
    expect(browserCpus("auto", undefined)).toBeUndefined();
    expect(browserCpus("all", [0, 1])).toBeUndefined();
    expect(browserCpus([1, 9], [0, 1, 2])).toEqual([1]);
    expect(browserCpus([8, 9], [0, 1])).toBeUndefined();
    // A list that names every core the server has confines nothing.
    expect(browserCpus([0, 1], [0, 1])).toBeUndefined();
  });
});
