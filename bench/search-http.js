// The HTTP path of a lead search against the engine (issue 27, item 1), side by side in one
// run, on a synthetic index (bench/_synthetic-places.js) served by `outreach serve` (the
// built binary, its request log included):
//   - requests per second at 50 connections: searches (NDJSON, a different centre and
//     keyword each) against GET /healthz, alternating, --rounds times: the ratio
//     search ÷ healthz (target ≥ 0.15), and the same from the server's CPU time per answer
//     (healthz CPU ÷ search CPU, /proc/<pid>/stat), which a loaded machine disturbs less;
//   - time to the first NDJSON line over HTTP, one search at a time after a warm-up:
//     p50 (target ≤ 3 ms) and p95 (≤ 6 ms), beside the engine's own time for the same
//     searches in this process (LocalPlaceProvider.search, warm), so what the HTTP path
//     adds is the difference.
//
//   npm run build && node bench/search-http.js --places 1000000      (the index)
//   node bench/search-http.js --places 100000 --seconds 3            (quicker, while developing)
//   CPU_PROF=/tmp/prof node bench/search-http.js                     (the server writes a V8 CPU profile)
//   node bench/search-http.js --root /tmp/old-checkout               (serve another built checkout)
//   node bench/search-http.js --data-dir /work/data-1m                (build the index there once, reuse it;
//                                                                      also BENCH_SEARCH_DATA=<dir>)
//
// The index is kept in $TMPDIR/outreach-bench-search-http-<N> (or --data-dir) and reused. The load
// average is printed with the figures: on a shared machine compare the ratios of one run.
import autocannon from "autocannon";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { processCpuMs, startServe, stopServe } from "./fixtures/outreach-serve.js";
import { freePort, median } from "./fixtures/server.js";
import { insertSyntheticPlaces, queryCentres, summary } from "./_synthetic-places.js";

const { values: args } = parseArgs({
  options: {
    places: { type: "string", default: "1000000" },
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    queries: { type: "string", default: "100" },
    root: { type: "string" },
    "data-dir": { type: "string" },
  },
});
const PLACES = Number(args.places);
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const QUERIES = Number(args.queries);
const CONNECTIONS = 50;
const ROOT = resolve(args.root ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const dist = (path) => import(pathToFileURL(join(ROOT, "dist", path)).href);
const { openInstance, resolveCacheDir } = await dist("services/instance.js");
const { loadCategoryVocabulary } = await dist("places/vocabulary/category-vocabulary.js");
const { LocalPlaceProvider } = await dist("places/search/local.js");
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

const KEYWORDS = ["restaurant", "dentist", "hairdresser", "cafe", "bakery", "italian restaurant", "hotels", "pharmacy", "Müller", "florist"];
const vocabulary = loadCategoryVocabulary(resolveCacheDir());
// A built index is reused: --data-dir (or BENCH_SEARCH_DATA) names one kept outside the
// repo, so a run does not rebuild 1M places (~minutes) each time.
const dataDir = resolve(args["data-dir"] ?? process.env.BENCH_SEARCH_DATA ?? join(tmpdir(), `outreach-bench-search-http-${PLACES}`));

/** The index (made once, then reused) and a token of its only workspace. */
async function prepareIndex() {
  mkdirSync(dataDir, { recursive: true });
  const tokenFile = join(dataDir, "bench-token");
  if (existsSync(tokenFile)) return readFileSync(tokenFile, "utf8");
  const instance = openInstance({ dataDir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
  try {
    const { token } = instance.services.identity.bootstrap({ name: "Bench", email: "bench@example.com", team: "Bench", plan: "self-hosted" });
    await insertSyntheticPlaces(instance.services.deps.db, PLACES, (labels) => ({ text: labels.join(" "), tags: vocabulary.tagsOfLabels(labels).join(" ") }));
    writeFileSync(tokenFile, token);
    return token;
  } finally {
    instance.close();
  }
}

const token = await prepareIndex();
const centres = queryCentres(QUERIES);
const body = (i) => JSON.stringify({ location: "bench", keywords: KEYWORDS[i % KEYWORDS.length], lat: centres[i % QUERIES].lat, lng: centres[i % QUERIES].lng });

/** The engine alone, warm, in this process: the same searches as the HTTP ones below. */
async function engineMs() {
  const instance = openInstance({ dataDir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
  try {
    const provider = new LocalPlaceProvider(instance.services.deps.db, { vocabulary: () => vocabulary });
    const signal = new AbortController().signal;
    const search = (i) => provider.search({ center: centres[i % QUERIES], radiusKm: 5, keywords: KEYWORDS[i % KEYWORDS.length], cursor: null, signal });
    for (let i = 0; i < QUERIES; i++) await search(i);
    const samples = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < QUERIES; i++) {
      const t = performance.now();
      await search(i);
      samples.push(performance.now() - t);
    }
    const used = process.cpuUsage(cpu);
    return { ...summary(samples), cpuUs: (used.user + used.system) / QUERIES };
  } finally {
    instance.close();
  }
}

/** One NDJSON search over a kept-alive connection: ms to the first line. */
async function firstLineMs(url, i) {
  const t = performance.now();
  const res = await fetch(`${url}/api/v1/map-leads/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/x-ndjson" },
    body: body(i),
  });
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
  const reader = res.body.getReader();
  let first;
  for (;;) {
    const { done } = await reader.read();
    first ??= performance.now() - t;
    if (done) return first;
  }
}

function check(name, result) {
  if (result.non2xx || result.errors || result.timeouts) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  return result;
}

let searchCounter = 0;
const searches = (url) =>
  autocannon({
    url,
    duration: SECONDS,
    connections: CONNECTIONS,
    requests: [
      {
        method: "POST",
        path: "/api/v1/map-leads/search",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/x-ndjson" },
        setupRequest: (req) => ({ ...req, body: body(searchCounter++) }),
      },
    ],
  });
const healthz = (url) => autocannon({ url: `${url}/healthz`, duration: SECONDS, connections: CONNECTIONS });

const engine = await engineMs();
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const child = await startServe(ROOT, dataDir, port);
try {
  // Warm-up: JIT, statements, the SQLite page cache, the connections.
  for (let i = 0; i < QUERIES; i++) await firstLineMs(url, i);
  const firstLines = [];
  for (let i = 0; i < QUERIES; i++) firstLines.push(await firstLineMs(url, i));
  const ttfl = summary(firstLines);
  const ratios = [];
  const cpuRatios = [];
  const rows = [];
  // The server's CPU per answer beside the rates: on a loaded machine the server also
  // waits for a core, which the rates show and the CPU does not.
  const measured = async (name, phase) => {
    const cpu = processCpuMs(child.pid);
    const result = check(name, await phase(url));
    return { result, cpuUs: ((processCpuMs(child.pid) - cpu) * 1000) / result.requests.total };
  };
  for (let r = 0; r < ROUNDS; r++) {
    const h = await measured("healthz", healthz);
    const s = await measured("search", searches);
    ratios.push(s.result.requests.average / h.result.requests.average);
    cpuRatios.push(h.cpuUs / s.cpuUs);
    rows.push({ healthz: h.result.requests.average, search: s.result.requests.average, searchP99: s.result.latency.p99, healthzCpu: h.cpuUs, searchCpu: s.cpuUs, load: load() });
  }
  console.log(`search over HTTP: ${PLACES.toLocaleString("en")} synthetic places, ${CONNECTIONS} connections, ${SECONDS} s phases x ${ROUNDS} rounds`);
  for (const row of rows) {
    console.log(
      `  healthz ${row.healthz.toFixed(0)} req/s (server CPU ${row.healthzCpu.toFixed(0)} µs each), search ${row.search.toFixed(0)} req/s (p99 ${row.searchP99} ms, server CPU ${row.searchCpu.toFixed(0)} µs each), load ${row.load}`,
    );
  }
  console.log(`ratio search ÷ healthz req/s at c=${CONNECTIONS} (median): ${median(ratios).toFixed(3)}  (target ≥ 0.15)`);
  console.log(`the same from the server's CPU per answer, healthz ÷ search (median): ${median(cpuRatios).toFixed(3)}  (what the rates give on an idle machine with the server on one core)`);
  console.log(`first NDJSON line over HTTP, one at a time (${QUERIES} searches): p50 ${ttfl.p50.toFixed(2)} ms, p95 ${ttfl.p95.toFixed(2)} ms  (targets ≤ 3 and ≤ 6)`);
  console.log(`the engine alone, warm, same searches: p50 ${engine.p50.toFixed(2)} ms, p95 ${engine.p95.toFixed(2)} ms; HTTP adds ${(ttfl.p50 - engine.p50).toFixed(2)} ms at p50 (load ${load()})`);
  const searchCpu = median(rows.map((row) => row.searchCpu));
  const healthzCpu = median(rows.map((row) => row.healthzCpu));
  console.log(
    `CPU per search: the engine alone ${engine.cpuUs.toFixed(0)} µs, the server ${searchCpu.toFixed(0)} µs (medians): the HTTP path adds ${(searchCpu - engine.cpuUs).toFixed(0)} µs; ` +
      `with nothing added the ratio would be ${(healthzCpu / engine.cpuUs).toFixed(3)}`,
  );
} finally {
  await stopServe(child);
}
