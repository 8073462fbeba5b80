// Child process of extraction-pool-teardown.test.ts: starts an extraction pool over the ES
// module graph `root` and destroys it at a random moment of its workers' start-up, `runs`
// times. A worker terminated while Node links a require()d ES module aborts this process
// (exit 134, "FATAL ERROR: v8::Module::IsGraphAsync"); surviving prints "survived N".
// argv: poolModule root runs seed [piscinaDirect]
import { pathToFileURL } from "node:url";

const [poolModule, root, runsArg, seedArg, direct] = process.argv.slice(2);
const { ExtractionPool } = await import(pathToFileURL(poolModule).href);
const { Piscina } = await import("piscina");

// mulberry32: the same moments for the same seed.
let seed = Number(seedArg) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

// `direct`: piscina given the ES module itself, as the pool did before (for comparison).
const start = () => (direct ? new Piscina({ filename: root, minThreads: 1, maxThreads: 1 }) : new ExtractionPool({ threads: 1, workerModule: root }));
const runTask = (pool) => (direct ? pool.run({}) : pool.extract(new Uint8Array(8), "text/html", "http://a.test/"));

// How long a worker takes to be able to answer: the window the terminations fall in.
const t0 = performance.now();
const first = start();
await runTask(first);
const loadMs = performance.now() - t0;
await first.destroy();

const runs = Number(runsArg);
for (let i = 0; i < runs; i++) {
  const pool = start();
  await new Promise((resolve) => setTimeout(resolve, random() * loadMs * 1.2));
  await pool.destroy();
}
console.log(`survived ${runs} (start-up ${Math.round(loadMs)} ms)`);
