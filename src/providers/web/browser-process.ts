import { readdir, readFile } from "node:fs/promises";
import { getPriority, setPriority } from "node:os";

/**
 * The process ids of `root` and all its descendants (Linux; elsewhere just root), read
 * without blocking the event loop, and only along the tree: each process's threads list
 * their own children in /proc/<pid>/task/<tid>/children (Chromium forks from more than one
 * thread). Reading every /proc/<pid>/stat of the machine instead, synchronously after each
 * rendered page, cost the event loop a few ms per hundred processes on the host.
 */
export async function processTree(root: number): Promise<number[]> {
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (tree.includes(pid)) continue;
    tree.push(pid);
    const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    const children = await Promise.all(threads.map((tid) => readFile(`/proc/${pid}/task/${tid}/children`, "utf8").catch(() => "")));
    for (const list of children) for (const child of list.split(" ")) if (child.trim()) queue.push(Number(child));
  }
  return tree;
}

/** Resident memory of a process and its descendants in MB (each counted whole: an upper bound). */
export async function treeRssMb(root: number | undefined): Promise<number> {
  if (root === undefined || process.platform !== "linux") return 0;
  const sizes = await Promise.all(
    (await processTree(root)).map((pid) =>
      readFile(`/proc/${pid}/status`, "utf8").then(
        (status) => Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0),
        () => 0, // ended meanwhile
      ),
    ),
  );
  return sizes.reduce((sum, kb) => sum + kb, 0) / 1024;
}

/**
 * Every thread of the browser's tree back to at least `nice`: Chromium sets its threads'
 * priorities itself (nice 0, and -8 for its UI, IO and compositor threads when run as root),
 * which then outrank the server's event loop on a busy machine. Run by the browser's host
 * (browser-host.ts) a few times a second; asynchronous reads of /proc, one syscall per
 * thread. Not permitted or not Linux: unchanged.
 */
export async function lowerTree(root: number | undefined, nice: number): Promise<void> {
  if (root === undefined || process.platform !== "linux") return;
  for (const pid of await processTree(root)) {
    for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
      try {
        if (getPriority(Number(tid)) < nice) setPriority(Number(tid), nice);
      } catch {
        // ended meanwhile, or not permitted
      }
    }
  }
}
