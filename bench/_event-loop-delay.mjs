// Loaded into a server under measurement with `node --import` (bench/fairness.js): every
// EVENT_LOOP_DELAY_MS (default 1000) it writes one JSON line to stderr with the event
// loop's delay over that interval (perf_hooks.monitorEventLoopDelay, 5 ms resolution), in ms:
// how long the loop was held, whatever held it (a synchronous query, a GC pause, a blocked
// write to a full pipe). No change to the server's own code.
import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
const everyMs = Number(process.env.EVENT_LOOP_DELAY_MS ?? 1000);
setInterval(() => {
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  process.stderr.write(`${JSON.stringify({ eventLoopDelay: { max: ms(histogram.max), p99: ms(histogram.percentile(99)), mean: ms(histogram.mean) } })}\n`);
  histogram.reset();
}, everyMs).unref();
