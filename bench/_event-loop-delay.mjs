// Loaded into a server under measurement with `node --import` (bench/fairness.js): every
// EVENT_LOOP_DELAY_MS (default 1000) it writes one JSON line to stderr with the event
// loop's delay over that interval (perf_hooks.monitorEventLoopDelay, 5 ms resolution), in ms:
// how long the loop was held, whatever held it (a synchronous query, a GC pause, a blocked
// write to a full pipe). No change to the server's own code.
//
// And who held it: a 10 ms timer reads the main thread's /proc schedstat (time on a CPU,
// time runnable but waiting for one) and keeps the interval's longest stall, with how much
// of it the thread ran (`ran`: our code, GC) and how much it waited in the run queue
// (`queued`: the machine's other processes had the cores); the rest it was blocked (I/O).
// On a system without /proc only the delay is written.
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
const everyMs = Number(process.env.EVENT_LOOP_DELAY_MS ?? 1000);
const TICK_MS = 10;

/** [ns on a CPU, ns waiting for one] of this process's main thread, or null. */
function schedstat() {
  try {
    return readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ").map(Number);
  } catch {
    return null;
  }
}

let worst = null;
let lastTick = performance.now();
let lastStat = schedstat();
if (lastStat) {
  setInterval(() => {
    const now = performance.now();
    const stat = schedstat();
    const stall = now - lastTick - TICK_MS;
    if (stat && (!worst || stall > worst.ms)) {
      worst = { ms: stall, ran: (stat[0] - lastStat[0]) / 1e6, queued: (stat[1] - lastStat[1]) / 1e6 };
    }
    lastTick = now;
    lastStat = stat;
  }, TICK_MS).unref();
}

setInterval(() => {
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const round = (x) => Math.round(x * 10) / 10;
  const longestStall = worst && { ms: round(worst.ms + TICK_MS), ran: round(worst.ran), queued: round(worst.queued) };
  process.stderr.write(`${JSON.stringify({ eventLoopDelay: { max: ms(histogram.max), p99: ms(histogram.percentile(99)), mean: ms(histogram.mean), longestStall } })}\n`);
  histogram.reset();
  worst = null;
}, everyMs).unref();
