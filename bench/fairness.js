// Fairness between readers and writers, and read stalls, against `outreach serve` (the built
// binary) on loopback (issue 27, item 2 and the reader stalls), side by side in one run:
//   - 50 connections listing contacts (GET /api/v1/contacts, workspace A) alone;
//   - 4 connections adding contacts (POST /api/v1/contacts/add, workspace B, about 100 a
//     second) alone;
//   - both at once: the writers' p99 against theirs alone (target ≤ 5), the readers' p99
//     against theirs alone (target ≤ 2), and every 5xx counted (SQLITE_BUSY would be one);
//   - steady reads for --steady seconds: the worst answer against p50 (target ≤ 10), and the
//     worst answer of each 10 s window; the server's event-loop delay (max and p99 of
//     perf_hooks.monitorEventLoopDelay, sampled in the server by _event-loop-delay.mjs), and
//     its longest stalls split into the time the main thread ran and waited for a CPU.
// The three phases run --rounds times, interleaved; ratios are medians of each round's own.
// Each latency comes twice: autocannon's own over every answer ("all"), and leaving out each
// connection's first answer, which autocannon times from net.connect() (TCP handshake,
// accept, the generator's start-up: fixtures/answer-latencies.js); the targets are read on
// the second ("kept connections"), the first is printed beside it. The writers run in a
// worker thread of their own (fixtures/writers-thread.js), so the readers' load generator
// never delays their clock. Beside each phase: the share of its wall time the server's main
// thread waited for a CPU while runnable (Linux schedstat, fixtures/cpu-wait.js): when the
// other processes on the machine take the cores, that is where a tail comes from.
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
import { trackAnswers } from "./fixtures/answer-latencies.js";
import { seedReadersAndWriters } from "./fixtures/contact-load.js";
import { watchCpuWait } from "./fixtures/cpu-wait.js";
import { startServe, stopServe } from "./fixtures/outreach-serve.js";
import { freePort, median } from "./fixtures/server.js";
import { writersInThread } from "./fixtures/writers-thread.js";

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

const writers = (url, token, seconds) => writersInThread({ url, token, seconds, connections: WRITERS, rate: WRITES_PER_SECOND });

/** 50 connections reading a list page; with the worst answer of each 10 s window (by when it was sent; first answers apart). */
function readers(url, token, seconds) {
  const run = autocannon({ url: `${url}/api/v1/contacts?limit=20&page=3`, duration: seconds, connections: READERS, headers: { authorization: `Bearer ${token}` } });
  const windows = [0];
  let worstAt = 0;
  const answers = trackAnswers(run, (ms, sentAt) => {
    const w = Math.floor(sentAt / WINDOW_MS);
    while (windows.length <= w) windows.push(0);
    if (ms > Math.max(...windows)) worstAt = sentAt / 1000;
    windows[w] = Math.max(windows[w], ms);
  });
  return run.then((result) => Object.assign(result, { windows, worstAt, answers: answers.summary() }));
}

/** `work` (a phase's promise-returning runs) with the share of its time the server's main thread waited for a CPU. */
async function watched(pid, work) {
  const cpu = watchCpuWait(pid);
  const results = await work();
  return Object.assign(results, { cpu: cpu.stop() });
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

  const pid = child.pid;
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const listAlone = await watched(pid, () => readers(url, readerToken, SECONDS));
    const addsAlone = await watched(pid, () => writers(url, writerToken, SECONDS));
    const both = await watched(pid, () => Promise.all([readers(url, readerToken, SECONDS), writers(url, writerToken, SECONDS)]));
    const [listWith, addsWith] = both;
    rounds.push({
      listAlone: check("list alone", listAlone),
      addsAlone: check("adds alone", addsAlone),
      listWith: check("list + adds", listWith),
      addsWith: check("adds + list", addsWith),
      cpu: { listAlone: listAlone.cpu, addsAlone: addsAlone.cpu, both: both.cpu },
      load: load(),
    });
  }
  const delaysBefore = server.delays.length;
  const steady = await watched(pid, async () => check("steady reads", await readers(url, readerToken, STEADY_SECONDS), true));
  const steadyDelays = server.delays.slice(delaysBefore);

  const m = (pick) => median(rounds.map(pick));
  const f = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "-");
  const waiting = (cpu) => (cpu ? `${f(100 * cpu.waiting, 0)} %` : "-");
  const row = (name, pick, cpu) =>
    console.log(
      `${name.padEnd(26)} ${f(m((r) => pick(r).requests.average), 0).padStart(6)} ${f(m((r) => pick(r).latency.p50)).padStart(7)} ${f(m((r) => pick(r).latency.p99)).padStart(7)} ${f(m((r) => pick(r).latency.max), 0).padStart(6)}` +
        ` ${f(m((r) => pick(r).answers.p50)).padStart(7)} ${f(m((r) => pick(r).answers.p99)).padStart(7)} ${f(m((r) => pick(r).answers.max), 0).padStart(6)}` +
        ` ${f(m((r) => pick(r).answers.firstAnswers.max), 0).padStart(7)} ${m((r) => cpu(r)?.waiting ?? NaN) >= 0 ? waiting({ waiting: m((r) => cpu(r).waiting) }).padStart(7) : "      -"}`,
    );
  console.log(`fairness: ${READERS} reading connections (${CONTACTS} contacts), ${WRITERS} writing (~${WRITES_PER_SECOND} adds/s, own thread), ${SECONDS} s phases x ${ROUNDS} rounds (medians)`);
  console.log(`load average per round: ${rounds.map((r) => r.load).join(" | ")}`);
  console.log("                             all answers (autocannon)   kept connections     first   server");
  console.log("phase                       req/s  p50 ms  p99 ms max ms  p50 ms  p99 ms max ms  max ms  waits*");
  row("contact list alone", (r) => r.listAlone, (r) => r.cpu.listAlone);
  row("contact list + 4 writers", (r) => r.listWith, (r) => r.cpu.both);
  row("contact adds alone", (r) => r.addsAlone, (r) => r.cpu.addsAlone);
  row("contact adds + 50 readers", (r) => r.addsWith, (r) => r.cpu.both);
  console.log("  first: each connection's first answer, timed by autocannon from net.connect() (fixtures/answer-latencies.js)");
  console.log("  * share of the phase the server's main thread waited for a CPU while runnable (other processes had the cores)");
  const ratio = (a, b, key) => m((r) => r[a][key].p99 / r[b][key].p99);
  console.log(`ratio writers' p99, with 50 readers / alone: ${f(ratio("addsWith", "addsAlone", "answers"), 2)} kept connections, ${f(ratio("addsWith", "addsAlone", "latency"), 2)} all answers  (target ≤ 5)`);
  // A p99 counts answered requests only: writers starved to a few adds a second show a small one.
  console.log(`writers served, with 50 readers / alone:     ${f(m((r) => r.addsWith.requests.average / r.addsAlone.requests.average), 2)}  (of ~${WRITES_PER_SECOND} adds/s offered)`);
  console.log(`ratio readers' p99, with writers / alone:    ${f(ratio("listWith", "listAlone", "answers"), 2)} kept connections, ${f(ratio("listWith", "listAlone", "latency"), 2)} all answers  (target ≤ 2)`);
  console.log(`failed answers (5xx, SQLITE_BUSY among them): 0 (the bench stops on any)`);
  const a = steady.answers;
  console.log(`steady reads, ${STEADY_SECONDS} s at ${READERS} connections (load ${load()}): ${steady.requests.average.toFixed(0)} req/s, server waited for a CPU ${waiting(steady.cpu)} of the time`);
  console.log(`  kept connections: p50 ${f(a.p50)} ms, p99 ${f(a.p99)} ms, max ${f(a.max, 0)} ms; all answers (autocannon): p50 ${steady.latency.p50} ms, p99 ${steady.latency.p99} ms, max ${steady.latency.max} ms`);
  console.log(`  first answer on each of the ${a.firstAnswers.count} connections (from net.connect()): median ${f(a.firstAnswers.median, 0)} ms, max ${f(a.firstAnswers.max, 0)} ms`);
  if (steady.stalled) console.log(`  ${steady.stalled} requests unanswered after 10 s (autocannon's timeout; not in the latencies)`);
  console.log(`  worst answer per 10 s window (kept connections): ${steady.windows.map((ms) => ms.toFixed(0)).join(" ")} ms (the worst sent ${steady.worstAt.toFixed(1)} s into the phase)`);
  if (steadyDelays.length) {
    console.log(`  server event-loop delay per second: max of maxima ${Math.max(...steadyDelays.map((d) => d.max)).toFixed(0)} ms, median p99 ${median(steadyDelays.map((d) => d.p99)).toFixed(1)} ms`);
    // Each second's longest stall, and what the main thread did meanwhile (_event-loop-delay.mjs): ran, or waited for a CPU.
    const stalls = steadyDelays.map((d) => d.longestStall).filter(Boolean).sort((x, y) => y.ms - x.ms).slice(0, 5);
    if (stalls.length) {
      console.log(`  the longest loop stalls, ms (wall: ran + waited for a CPU + blocked): ${stalls.map((x) => `${x.ms.toFixed(0)}: ${x.ran.toFixed(0)} + ${x.queued.toFixed(0)} + ${Math.max(0, x.ms - x.ran - x.queued).toFixed(0)}`).join(", ")}`);
    }
  }
  console.log(`ratio steady reads max / p50:                ${f(a.max / a.p50, 2)} kept connections, ${f(steady.latency.max / steady.latency.p50, 2)} all answers  (target ≤ 10)`);
} finally {
  if (server) await stopServe(server.child);
  rmSync(dir, { recursive: true, force: true });
}
