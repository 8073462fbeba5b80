import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";

/** The process ids of `root` and all its descendants, from /proc (Linux; elsewhere just root). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return [root];
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident memory of a process and its descendants in MB (each counted whole: an upper bound). */
export function treeRssMb(root: number | undefined): number {
  if (root === undefined || process.platform !== "linux") return 0;
  let kb = 0;
  for (const pid of processTree(root)) {
    try {
      kb += Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // ended meanwhile
    }
  }
  return kb / 1024;
}

/**
 * The browser's threads run at a lower scheduling priority than the server (on Linux each
 * thread has its own): on a busy machine /healthz and the API answer first and pages render
 * in what is left. Run once per browser, after its first page: renderers forked later by the
 * zygote inherit its lowered priority. It reads /proc once (a few ms). Not permitted or not
 * Linux: unchanged.
 */
export function lowerPriority(root: number | undefined): void {
  if (root === undefined || process.platform !== "linux") return;
  for (const pid of processTree(root)) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          setPriority(Number(tid), 10);
        } catch {
          // not permitted: unchanged
        }
      }
    } catch {
      // ended meanwhile
    }
  }
}
