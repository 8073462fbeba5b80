import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { allowedCpus, browserCpus, parseCpuList } from "../../../src/providers/web/browser-cpus.js";
import { processTree } from "../../../src/providers/web/browser-process.js";
import { BrowserRenderer } from "../../../src/providers/web/browser-renderer.js";
import { SafeWebFetcher } from "../../../src/providers/web/safe-fetcher.js";
import { fixtureLookup, startFixtureSites } from "../../helpers/fixture-sites.js";

/** Debian's Chromium (.ci/run installs it): the real browser, never a stand-in. */
const CHROMIUM = execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"]).toString().trim();
const renderers: BrowserRenderer[] = [];
afterEach(async () => {
  for (const renderer of renderers.splice(0)) await renderer.close();
});

/** A process's (or, with `of`, one of its threads') parent id and nice value, from /proc (undefined once it is gone). */
function stat(pid: number, of?: number): { ppid: number; nice: number } | undefined {
  try {
    const text = readFileSync(of === undefined ? `/proc/${pid}/stat` : `/proc/${of}/task/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), nice: Number(fields[16]) };
  } catch {
    return undefined;
  }
}

/** The cores each thread of a process may run on (undefined for a thread gone meanwhile). */
function threadCpus(pid: number): Array<number[] | undefined> {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // the process ended meanwhile
  }
  return tids.map((tid) => {
    try {
      const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"))?.[1];
      return list ? parseCpuList(list) : undefined;
    } catch {
      return undefined;
    }
  });
}

/** The lowest nice value among a process's threads. */
function minimumThreadNice(pid: number): number {
  return Math.min(...readdirSync(`/proc/${pid}/task`).map((tid) => stat(Number(tid), pid)?.nice ?? 20));
}

/** A renderer that has shown one script-built page (so its browser runs), and Chromium's pid. */
async function renderedOnce(): Promise<{ renderer: BrowserRenderer; chromium: number }> {
  const sites = await startFixtureSites({ "shop.de": { "/": "<title>x</title><div id=app></div><script>document.write(['info', 'shop.de'].join('@'))</script>" } });
  const fetcher = new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach/0.1", lookup: fixtureLookup });
  const renderer = new BrowserRenderer({ executablePath: CHROMIUM, pages: 1, fetcher });
  renderers.push(renderer);
  const page = await renderer.render(sites.url("shop.de"), AbortSignal.timeout(30_000));
  expect(page.html).toContain("info@shop.de");
  return { renderer, chromium: (await renderer.pid())! };
}

describe("the browser runs under a host process of its own (issue 26: the server's event loop during a browser crawl)", () => {
  it.runIf(process.platform === "linux")("Chromium is launched by a child process at nice 10, not by the server; no thread of Chromium runs above the server; close ends both", async () => {
    const { renderer, chromium } = await renderedOnce();
    const browser = stat(chromium)!;
    const host = stat(browser.ppid)!;
    // Playwright's server side (the DevTools protocol, every page's events) lives in the host, not here.
    expect(browser.ppid).not.toBe(process.pid);
    expect(host.ppid).toBe(process.pid);
    expect(readFileSync(`/proc/${browser.ppid}/cmdline`, "utf8")).toContain("browser-host.js");
    expect(host.nice).toBe(10);
    // Chromium sets its threads' priorities itself (as root, -8 for some: above the server); the host brings them back to 0.
    await expect.poll(() => minimumThreadNice(chromium), { timeout: 5000 }).toBeGreaterThanOrEqual(0);

    await renderer.close();
    expect(stat(chromium)).toBeUndefined();
    expect(stat(browser.ppid)?.ppid === process.pid).toBe(false);
  }, 60_000);

  // Needs a machine with two cores or more: on one core the rule confines nothing (tested in browser-cpus.test.ts).
  it.runIf(process.platform === "linux" && (allowedCpus()?.length ?? 0) >= 2)("every process and thread of the browser runs on all the server's cores but the last; the server keeps them all", async () => {
    const { chromium } = await renderedOnce();
    const server = allowedCpus()!;
    const expected = browserCpus("auto", server)!;
    expect(expected).toEqual(server.slice(0, -1));
    const host = stat(chromium)!.ppid;
    // The renderers, GPU and utility processes too: they are started after the host was confined.
    const pids = [host, ...(await processTree(chromium))];
    expect(pids.length).toBeGreaterThan(2);
    for (const pid of pids) for (const cpus of threadCpus(pid)) if (cpus) expect(cpus).toEqual(expected);
    expect(threadCpus(process.pid).filter(Boolean)[0]).toEqual(server);
  }, 60_000);
});

