// Fairness between readers and writers, and read stalls, against `outreach serve` (the built
// binary) on loopback (issue 27, item 2 and the reader stalls), side by side in one run:
//   - 50 connections listing contacts (GET /api/v1/contacts, workspace A) alone;
//   - 4 connections adding contacts (POST /api/v1/contacts/add, workspace B, about 100 a
//     second) alone;
//   - both at once: the writers' p99 against theirs alone (target ≤ 5), the readers' p99
//     against theirs alone (target ≤ 2), and every 5xx counted (SQLITE_BUSY would be one);
//   - steady reads for --steady seconds: the worst answer against p50 (target ≤ 10), and the
//     worst answer of each 10 s window; the server's event-loop delay (max and p99 of
//     perf_hooks.monitorEventLoopDelay, sampled in the server by _event-loop-delay.mjs).
// The three phases run --rounds times, interleaved; ratios are medians of each round's own.
//
//   npm run build && node bench/fairness.js                     (5 s phases, 3 rounds, 60 s steady)
//   node bench/fairness.js --seconds 3 --rounds 1 --steady 20  (quicker, while developing)
//   CPU_PROF=/tmp/prof node bench/fairness.js                   (the server writes a V8 CPU profile there)
//   node bench/fairness.js --root /tmp/old-checkout             (measure another built checkout)
//
// The load generator (autocannon) shares the machine's cores with the server: compare the
// figures of one run, and read them with the load average printed beside them.
import autocannon from "autocannon";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { addContactRequest, seedReadersAndWriters } from "./fixtures/contact-load.js";
import { startServe, stopServe } from "./fixtures/outreach-serve.js";
import { freePort, median } from "./fixtures/server.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SECONDS = Number(arg("seconds", 5));
const ROUNDS = Number(arg("rounds", 3));
const STEADY_SECONDS = Number(arg("steady", 60));
const CONTACTS = Number(arg("contacts", 5000));
const READERS = 50;
const WRITERS = 4;
const WRITES_PER_SECOND = Number(arg("writes-per-second", 100));
const WINDOW_MS = 10_000;

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(arg("root", join(HERE, "..")));
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

/** The server's event-loop delay, one sample a second, from the lines _event-loop-delay.mjs writes to its stderr. */
function collectDelays(child) {
  const delays = [];
  let rest = "";
  child.stderr.on("data", (d) => {
    const lines = (rest + d).split("\n");
    rest = lines.pop();
    for (const line of lines) if (line.startsWith('{"eventLoopDelay"')) delays.push(JSON.parse(line).eventLoopDelay);
  });
  return delays;
}

/**
 * Failed answers of a phase: any 5xx (SQLITE_BUSY included) or connection error stops the
 * bench. A request unanswered after autocannon's 10 s is a stall, not a failure: counted
 * (`stalled`) and reported when `stallsAllowed`.
 */
function check(name, result, stallsAllowed = false) {
  const failed = result.non2xx || result.errors - result.timeouts || (!stallsAllowed && result.timeouts);
  if (failed) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  return Object.assign(result, { stalled: result.timeouts });
}

const writers = (url, token, seconds) =>
  autocannon({ url, duration: seconds, connections: WRITERS, overallRate: WRITES_PER_SECOND, requests: [addContactRequest(token)] });

/** 50 connections reading a list page; with the worst answer of each 10 s window. */
function readers(url, token, seconds) {
  const run = autocannon({ url: `${url}/api/v1/contacts?limit=20&page=3`, duration: seconds, connections: READERS, headers: { authorization: `Bearer ${token}` } });
  const windows = [0];
  const started = performance.now();
  let windowStart = started;
  let worstAt = 0;
  run.on("response", (_client, _status, _bytes, ms) => {
    const now = performance.now();
    if (now - windowStart > WINDOW_MS) {
      windows.push(0);
      windowStart = now;
    }
    // When the worst answer was sent (answered at `now`, it took `ms`): tells a stall at start-up (fresh connections) from one later.
    if (ms > Math.max(...windows)) worstAt = (now - ms - started) / 1000;
    windows[windows.length - 1] = Math.max(windows[windows.length - 1], ms);
  });
  return run.then((result) => Object.assign(result, { windows, worstAt }));
}

const dir = mkdtempSync(join(tmpdir(), "outreach-fairness-"));
let server;
try {
  const { readerToken, writerToken } = await seedReadersAndWriters(ROOT, dir, CONTACTS);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startServe(ROOT, dir, port, {
    nodeArgs: ["--import", pathToFileURL(join(HERE, "_event-loop-delay.mjs")).href],
    env: { EVENT_LOOP_DELAY_MS: "1000" },
    stderr: true,
  });
  server = { child, delays: collectDelays(child) };
  // Warm-up: JIT, statements, connections.
  await Promise.all([readers(url, readerToken, 2), writers(url, writerToken, 2)]);

  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const listAlone = check("list alone", await readers(url, readerToken, SECONDS));
    const addsAlone = check("adds alone", await writers(url, writerToken, SECONDS));
    const [listWith, addsWith] = await Promise.all([readers(url, readerToken, SECONDS), writers(url, writerToken, SECONDS)]);
    rounds.push({ listAlone, addsAlone, listWith: check("list + adds", listWith), addsWith: check("adds + list", addsWith), load: load() });
  }
  const delaysBefore = server.delays.length;
  const steady = check("steady reads", await readers(url, readerToken, STEADY_SECONDS), true);
  const steadyDelays = server.delays.slice(delaysBefore);

  const m = (pick) => median(rounds.map(pick));
  const row = (name, pick) =>
    console.log(`${name.padEnd(28)} ${m((r) => pick(r).requests.average).toFixed(0).padStart(7)} ${m((r) => pick(r).latency.p50).toFixed(1).padStart(8)} ${m((r) => pick(r).latency.p99).toFixed(1).padStart(8)} ${m((r) => pick(r).latency.max).toFixed(0).padStart(8)}`);
  console.log(`fairness: ${READERS} reading connections (${CONTACTS} contacts), ${WRITERS} writing (~${WRITES_PER_SECOND} adds/s), ${SECONDS} s phases x ${ROUNDS} rounds (medians)`);
  console.log(`load average per round: ${rounds.map((r) => r.load).join(" | ")}`);
  console.log("phase                          req/s   p50 ms   p99 ms   max ms");
  row("contact list alone", (r) => r.listAlone);
  row("contact list + 4 writers", (r) => r.listWith);
  row("contact adds alone", (r) => r.addsAlone);
  row("contact adds + 50 readers", (r) => r.addsWith);
  const writersRatio = m((r) => r.addsWith.latency.p99 / r.addsAlone.latency.p99);
  const readersRatio = m((r) => r.listWith.latency.p99 / r.listAlone.latency.p99);
  console.log(`ratio writers' p99, with 50 readers / alone: ${writersRatio.toFixed(2)}  (target ≤ 5)`);
  // A p99 counts answered requests only: writers starved to a few adds a second show a small one.
  console.log(`writers served, with 50 readers / alone:     ${m((r) => r.addsWith.requests.average / r.addsAlone.requests.average).toFixed(2)}  (of ~${WRITES_PER_SECOND} adds/s offered)`);
  console.log(`ratio readers' p99, with writers / alone:    ${readersRatio.toFixed(2)}  (target ≤ 2)`);
  console.log(`failed answers (5xx, SQLITE_BUSY among them): 0 (the bench stops on any)`);
  console.log(`steady reads, ${STEADY_SECONDS} s at ${READERS} connections (load ${load()}): ${steady.requests.average.toFixed(0)} req/s, p50 ${steady.latency.p50} ms, p99 ${steady.latency.p99} ms, max ${steady.latency.max} ms`);
  if (steady.stalled) console.log(`  ${steady.stalled} requests unanswered after 10 s (autocannon's timeout; not in the latencies)`);
  console.log(`  worst answer per 10 s window: ${steady.windows.map((ms) => ms.toFixed(0)).join(" ")} ms (the worst sent ${steady.worstAt.toFixed(1)} s into the phase, on fresh connections)`);
  if (steadyDelays.length) {
    console.log(`  server event-loop delay per second: max of maxima ${Math.max(...steadyDelays.map((d) => d.max)).toFixed(0)} ms, median p99 ${median(steadyDelays.map((d) => d.p99)).toFixed(1)} ms`);
  }
  console.log(`ratio steady reads max / p50:                ${(steady.latency.max / steady.latency.p50).toFixed(2)}  (target ≤ 10)`);
} finally {
  if (server) await stopServe(server.child);
  rmSync(dir, { recursive: true, force: true });
}
