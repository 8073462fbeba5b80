import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";

/**
 * Which cores the browser may use (`OUTREACH_BROWSER_CPUS`). Why confine it at all: during a
 * browser crawl on a 2-core machine, Chromium's renderers took both cores and the server's
 * event loop waited for one (its /healthz answered in up to 300 ms while its own code ran
 * for none of that: bench/enrich-browser.js with --cpu-prof). Lower priorities alone did not
 * do: nice 10 made pages miss their budgets on a loaded machine. A core the browser never
 * gets is one the server always can.
 *
 * The rule: the browser (its host process, Chromium and every process and thread they start,
 * which inherit the mask) runs on the cores the server may use minus the highest-numbered
 * one; on a single core it is not confined. `all` turns confinement off; a list such as
 * `0-2,5` (taskset's syntax) names the cores outright.
 */
export type BrowserCpuSetting = "auto" | "all" | number[];

/** Parses `OUTREACH_BROWSER_CPUS`; throws a message naming what is wrong. */
export function parseBrowserCpus(raw: string | undefined): BrowserCpuSetting {
  const value = raw?.trim().toLowerCase() ?? "";
  if (value === "" || value === "auto") return "auto";
  if (value === "all") return "all";
  const cpus = parseCpuList(value);
  if (!cpus) throw new Error(`OUTREACH_BROWSER_CPUS must be auto, all or a list of cores such as 0-2,5 (got ${JSON.stringify(raw)})`);
  return cpus;
}

/** "0-2,5" → [0, 1, 2, 5]; undefined when it is not such a list (or names more than 4096 cores). */
export function parseCpuList(text: string): number[] | undefined {
  const cpus = new Set<number>();
  for (const part of text.trim().split(",")) {
    const range = /^(\d{1,4})(?:-(\d{1,4}))?$/.exec(part.trim());
    if (!range) return undefined;
    const from = Number(range[1]);
    const to = Number(range[2] ?? range[1]);
    if (to < from || to >= 4096) return undefined;
    for (let cpu = from; cpu <= to; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The cores this process may run on (Linux: /proc/self/status), or undefined where that cannot be read. */
export function allowedCpus(): number[] | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return list ? parseCpuList(list) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cores to confine the browser to under `setting`, given the server's own; undefined:
 * not confined (one core, `all`, or not Linux). A list naming no core the server may use is
 * ignored rather than failing every render.
 */
export function browserCpus(setting: BrowserCpuSetting, allowed: number[] | undefined): number[] | undefined {
  if (setting === "all" || !allowed || allowed.length === 0) return undefined;
  if (setting === "auto") return allowed.length >= 2 ? allowed.slice(0, -1) : undefined;
  const usable = setting.filter((cpu) => allowed.includes(cpu));
  return usable.length > 0 && usable.length < allowed.length ? usable : undefined;
}

const run = promisify(execFile);

/**
 * Confines every thread of process `pid` to `cpus` (util-linux's taskset, i.e.
 * sched_setaffinity, which Node does not offer); processes and threads it starts later
 * inherit the mask. False when it could not (no taskset, not permitted).
 */
export async function confineProcess(pid: number, cpus: number[]): Promise<boolean> {
  try {
    await run("taskset", ["--all-tasks", "--cpu-list", "--pid", cpus.join(","), String(pid)], { timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}
