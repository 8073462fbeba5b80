// Lead search latency: the local provider on a synthetic index of 1,000,000 places, cold
// (a fresh connection and provider per query: empty SQLite page cache and statement
// cache, nothing remembered in JavaScript) and warm (one long-lived provider), its ratio
// to a full-scan baseline (haversine over every row + LIKE) in the same run, larger radii,
// the time to the first NDJSON line over HTTP, and the same searches on the real extracts
// of ../shared/data imported into a fresh data directory. Plain Node ESM over dist/ (run
// `npm run build`).
//
//   node bench/search.js [--places 1000000] [--queries 300] [--baseline-queries 12] [--data-dir DIR]
//
// (The operating system's file cache is not dropped between cold queries: that needs
// root, and a server's index file stays in it anyway.)
//
// Load average matters on a shared machine: it is printed with the figures.
// The generated data directory is kept (default: $TMPDIR/outreach-bench-search-<N>) and
// reused by later runs, since generating a million places takes a minute or two.
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { toNodeHandler } from "h3";
import { openInstance, resolveCacheDir } from "../dist/services/instance.js";
import { openDatabase } from "../dist/store/db.js";
import { createApp } from "../dist/server/app.js";
import { LocalPlaceProvider } from "../dist/places/search/local.js";
import { postingsCount } from "../dist/places/store/postings-codec.js";
import { loadCategoryVocabulary } from "../dist/places/vocabulary/category-vocabulary.js";
import { insertSyntheticPlaces, queryCentres, random, reseed, summary, TOWNS } from "./_synthetic-places.js";
import { distanceKm } from "../dist/core/geo.js";

const { values: args } = parseArgs({
  options: {
    places: { type: "string", default: "1000000" },
    queries: { type: "string", default: "300" },
    "data-dir": { type: "string" },
    "baseline-queries": { type: "string", default: "12" },
  },
});
const PLACES = Number(args.places);
const QUERIES = Number(args.queries);
const dataDir = args["data-dir"] ?? join(tmpdir(), `outreach-bench-search-${PLACES}`);

// The category vocabulary (built once per machine, then read from the cache), which the
// search reads in every process: loaded before any timing, as a running server has it.
const vocabulary = loadCategoryVocabulary(resolveCacheDir());
const vocabularyOption = { vocabulary: () => vocabulary };

async function generate(instance) {
  // As an import of labelled rows does: the labels' tags in the vocabulary.
  return insertSyntheticPlaces(instance.services.deps.db, PLACES, (labels) => ({ text: labels.join(" "), tags: vocabulary.tagsOfLabels(labels).join(" ") }));
}

const KEYWORDS = ["restaurant", "dentist", "hairdresser", "cafe", "bakery", "italian restaurant", "hotels", "pharmacy", "Müller", "florist"];
// The same concepts typed in other languages, measured apart (they read the same tags).
const LOCAL_KEYWORDS = ["Zahnarzt", "ravintola", "Bäckerei", "kahvila", "Friseur", "pharmacie", "ristorante", "Apotheke", "Baeckerei", "fioraio"];

function queries(n) {
  return queryCentres(n).map((center, i) => ({ center, keywords: KEYWORDS[i % KEYWORDS.length] }));
}

const fresh = !existsSync(join(dataDir, "outreach.db"));
mkdirSync(dataDir, { recursive: true });
// Opening an index built by an older version runs the pending migrations (the term
// index backfill among them): timed, since an upgrade pays it once.
const openStarted = performance.now();
const instance = openInstance({ dataDir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
const openMs = performance.now() - openStarted;
const db = instance.services.deps.db;
let token;
let generatedSeconds;
let generatedCpuSeconds;
if (fresh || db.prepare("SELECT count(*) AS n FROM places").get().n !== PLACES) {
  if (!fresh) throw new Error(`${dataDir} holds another index; remove it or pass --data-dir`);
  token = instance.services.identity.bootstrap({ name: "Bench", email: "bench@example.com", team: "Bench", plan: "self-hosted" }).token;
  const cpu = process.cpuUsage();
  generatedSeconds = await generate(instance);
  const used = process.cpuUsage(cpu);
  // Every thread's CPU: the packing runs on threads too.
  generatedCpuSeconds = (used.user + used.system) / 1e6;
}
const owner = db.prepare("SELECT u.id FROM users u LIMIT 1").get();
token ??= instance.services.identity.issuePersonalToken(owner.id, "bench").raw;

const signal = new AbortController().signal;
const qs = queries(QUERIES);
const dbFile = join(dataDir, "outreach.db");

/** One search on a brand-new connection and provider: nothing cached but the OS file cache. */
async function coldSearch(q, radiusKm, file = dbFile, earlyStop = true) {
  const connection = openDatabase(file);
  try {
    const provider = new LocalPlaceProvider(connection, { ...vocabularyOption, earlyStop });
    const cpu = process.cpuUsage();
    const t = performance.now();
    const page = await provider.search({ center: q.center, radiusKm, keywords: q.keywords, cursor: null, signal });
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000, leads: page.leads.length };
  } finally {
    connection.close();
  }
}

// CPU time is reported next to wall time: on a shared machine the wall clock also counts
// the time spent waiting for a core.
const coldSamples = [];
const coldCpu = [];
let leadsReturned = 0;
for (const q of qs) {
  const { ms, cpuMs, leads } = await coldSearch(q, 5);
  coldSamples.push(ms);
  coldCpu.push(cpuMs);
  leadsReturned += leads;
}
const cold = summary(coldSamples);
const coldCpuStats = summary(coldCpu);

// The same centres with the local-language words.
const coldLocalSamples = [];
for (const [i, q] of qs.entries()) coldLocalSamples.push((await coldSearch({ center: q.center, keywords: LOCAL_KEYWORDS[i % LOCAL_KEYWORDS.length] }, 5)).ms);
const coldLocal = summary(coldLocalSamples);

// Warm: one provider, the same queries after a warm-up pass.
const provider = new LocalPlaceProvider(db, vocabularyOption);
for (const q of qs.slice(0, 20)) await provider.search({ center: q.center, radiusKm: 5, keywords: q.keywords, cursor: null, signal });
const latencies = [];
for (const q of qs) {
  const t = performance.now();
  await provider.search({ center: q.center, radiusKm: 5, keywords: q.keywords, cursor: null, signal });
  latencies.push(performance.now() - t);
}
const warm = summary(latencies);

// Larger circles, cold, around the same centres (the densest towns come up most often):
// read outward only as far as the page needs (the default), and, as the baseline in the
// same run, the whole circle; the two alternate query by query, so load hits both alike.
const radii = {};
const radiiCpu = {};
const radiiFullCpu = {};
for (const radiusKm of [25, 100]) {
  const samples = [];
  const cpu = [];
  const fullCpu = [];
  for (const q of qs.slice(0, 40)) {
    const { ms, cpuMs } = await coldSearch(q, radiusKm);
    samples.push(ms);
    cpu.push(cpuMs);
    fullCpu.push((await coldSearch(q, radiusKm, dbFile, false)).cpuMs);
  }
  radii[radiusKm] = summary(samples);
  radiiCpu[radiusKm] = summary(cpu);
  radiiFullCpu[radiusKm] = summary(fullCpu);
}

// Early stopping changes nothing: the first three pages (and their next cursors) of the
// banded search against the whole circle read, by relevance and by distance.
let earlyCompared = 0;
const earlyMismatches = [];
{
  const early = new LocalPlaceProvider(db, vocabularyOption);
  const full = new LocalPlaceProvider(db, { ...vocabularyOption, earlyStop: false });
  const pages = async (p, q, radiusKm, sort) => {
    const out = [];
    let cursor = null;
    do {
      const page = await p.search({ center: q.center, radiusKm, keywords: q.keywords, cursor, signal, sort });
      out.push(`${page.leads.map((l) => l.placeId).join(",")}>${page.nextCursor}`);
      cursor = page.nextCursor;
    } while (cursor && out.length < 3);
    return out.join(";");
  };
  for (const [radiusKm, n] of [[25, 20], [100, 20]]) {
    for (const q of qs.slice(0, n)) {
      for (const sort of ["relevance", "distance"]) {
        earlyCompared++;
        if ((await pages(early, q, radiusKm, sort)) !== (await pages(full, q, radiusKm, sort))) earlyMismatches.push(`${q.keywords} ${radiusKm} km ${sort}`);
      }
    }
  }
}

// The fallback plan (the box's places by grid row, every place's text scored), forced on the 5 km queries.
const boxScanSamples = [];
for (const q of qs.slice(0, 20)) {
  const p = new LocalPlaceProvider(db, vocabularyOption);
  const t = performance.now();
  p.boxScan(q.center, 5, p.slotsOf(q.keywords));
  boxScanSamples.push(performance.now() - t);
}
const boxScan = summary(boxScanSamples);

// Exactness: the term index's matches and their scores against every place of the box
// scored on its text (the fallback plan, which reads no postings), at 5, 25 and 100 km. As
// sets: the index ranks by positions rounded to 1e-7 degrees, the fallback by the rows'.
let compared = 0;
const mismatches = [];
for (const [radiusKm, n] of [[5, 20], [25, 10], [100, 3]]) {
  for (const q of qs.slice(0, n)) {
    const p = new LocalPlaceProvider(db, vocabularyOption);
    const viaIndex = p.rankedMatches(q.center, radiusKm, q.keywords).map((r) => `${r.id}:${r.score}`).sort();
    const viaText = p.boxScan(q.center, radiusKm, p.slotsOf(q.keywords)).map((r) => `${r.id}:${r.score}`).sort();
    compared++;
    if (viaIndex.join() !== viaText.join()) mismatches.push(`${q.keywords} ${radiusKm} km: ${viaIndex.length} vs ${viaText.length}`);
  }
}

// Postings (one per place and term) in the packed index: each BLOB starts with its count.
const countPostings = (where) => db.prepare(`SELECT postings FROM place_postings ${where}`).pluck().all().reduce((n, blob) => n + postingsCount(blob), 0);
const termRows = countPostings("");
const tagRows = countPostings("WHERE term >= '#' AND term < '$'");
let postingsPages = null;
try {
  postingsPages = db.prepare("SELECT count(*) FROM dbstat WHERE name LIKE 'place_postings%'").pluck().get();
} catch {
  // dbstat is a compile-time option of SQLite.
}
const pageCount = db.pragma("page_count", { simple: true });
const pageSize = db.pragma("page_size", { simple: true });
// The term index is the packed postings alone since migration 017 (no place_terms rows).
const termPages = null;

// Baseline: what a naive implementation does — every row, haversine + LIKE.
function fullScanSamples(database, queries) {
  database.function("haversine_km", { deterministic: true }, (lat1, lng1, lat2, lng2) => distanceKm({ lat: lat1, lng: lng1 }, { lat: lat2, lng: lng2 }));
  const naive = database.prepare(
    `SELECT id, haversine_km(lat, lng, ?, ?) AS d FROM places
      WHERE (name LIKE ? OR category_text LIKE ?) AND haversine_km(lat, lng, ?, ?) <= 5 ORDER BY d LIMIT 20`,
  );
  const samples = [];
  for (const q of queries) {
    const like = `%${q.keywords.replace(/s$/, "")}%`;
    const t = performance.now();
    naive.all(q.center.lat, q.center.lng, like, like, q.center.lat, q.center.lng);
    samples.push(performance.now() - t);
  }
  return samples;
}
const baselineSamples = fullScanSamples(db, qs.slice(0, Number(args["baseline-queries"])));
const baseline = summary(baselineSamples);

// Time to first NDJSON line over HTTP (real socket, real auth and quota).
const app = createApp(instance.services, { log: () => {} });
const server = createServer(toNodeHandler(app.h3));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/api/v1/map-leads/search`;
/** One NDJSON search over the socket: [time to the first line, time to the end]. */
async function ndjsonSearch(q) {
  const t = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/x-ndjson" },
    body: JSON.stringify({ location: "bench", keywords: q.keywords, lat: q.center.lat, lng: q.center.lng }),
  });
  const reader = res.body.getReader();
  let first;
  for (;;) {
    const { done } = await reader.read();
    first ??= performance.now() - t;
    if (done) break;
  }
  return [first, performance.now() - t];
}
// A running server is warm after its first requests: warm it (JIT, statements, the
// client's connection) on other queries than the measured ones.
for (const q of qs.slice(100, 200)) await ndjsonSearch(q);
const ttfl = [];
const complete = [];
for (const q of qs.slice(0, 30)) {
  const [first, whole] = await ndjsonSearch(q);
  ttfl.push(first);
  complete.push(whole);
}
server.close();
const http = summary(ttfl);
const httpDone = summary(complete);
instance.close();

// The same 5 km searches on the real extracts in ../shared/data, imported through the real
// importer into a fresh data directory: centres at imported places (where users search),
// cold and warm, against the same full-scan baseline.
async function extractsBench() {
  const dir = join(tmpdir(), `outreach-bench-search-extracts-${process.pid}`);
  const real = openInstance({ dataDir: dir, env: {}, config: { rateLimitPerMinute: 0, enrich: false } });
  try {
    const shared = fileURLToPath(new URL("../../shared/data", import.meta.url));
    const files = readdirSync(shared).filter((f) => /\.(osm\.pbf|parquet)$/.test(f)).sort();
    for (const file of files) await real.services.placesImport.importFile(join(shared, file));
    const realDb = real.services.deps.db;
    const points = realDb.prepare("SELECT lat, lng FROM places ORDER BY id").all();
    const words = ["restaurant", "cafe", "hotel", "dentist", "bakery", "pharmacy", "bar", "hairdresser", "bank", "supermarket"];
    reseed(2026);
    const realQueries = Array.from({ length: 200 }, (_, i) => ({ center: points[Math.floor(random() * points.length)], keywords: words[i % words.length] }));
    const coldReal = [];
    for (const q of realQueries) coldReal.push((await coldSearch(q, 5, join(dir, "outreach.db"))).ms);
    const p = new LocalPlaceProvider(realDb, vocabularyOption);
    for (const q of realQueries.slice(0, 20)) await p.search({ center: q.center, radiusKm: 5, keywords: q.keywords, cursor: null, signal });
    const warmReal = [];
    for (const q of realQueries) {
      const t = performance.now();
      await p.search({ center: q.center, radiusKm: 5, keywords: q.keywords, cursor: null, signal });
      warmReal.push(performance.now() - t);
    }
    const baselineReal = fullScanSamples(realDb, realQueries);
    return { files, places: points.length, cold: summary(coldReal), warm: summary(warmReal), baseline: summary(baselineReal) };
  } finally {
    real.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const extracts = await extractsBench();

const f = (ms) => `${ms.toFixed(2)} ms`;
const row = (label, st) => console.log(`| ${label} | ${f(st.p50)} | ${f(st.p95)} | ${st.n} |`);
console.log(`\nLead search, ${PLACES.toLocaleString("en")} synthetic places around ${TOWNS.length} towns, 5 km circle, one page of ≤ 20`);
console.log(`(${QUERIES} queries over ${KEYWORDS.length} keywords; ${(leadsReturned / QUERIES).toFixed(1)} leads per page on average)\n`);
console.log("| measurement | p50 | p95 | n |");
console.log("|---|---|---|---|");
row("local provider, cold (fresh connection and provider per query)", cold);
row("local provider, cold, CPU time of the process (user + system)", coldCpuStats);
row("local provider, cold, the same concepts in German, Finnish, French, Italian", coldLocal);
row("local provider, warm (one provider, after warm-up)", warm);
row("cold, 25 km circle", radii[25]);
row("cold, 100 km circle", radii[100]);
row("cold, 25 km circle, CPU time", radiiCpu[25]);
row("cold, 100 km circle, CPU time", radiiCpu[100]);
row("cold, 25 km circle, CPU time, whole circle read (baseline)", radiiFullCpu[25]);
row("cold, 100 km circle, CPU time, whole circle read (baseline)", radiiFullCpu[100]);
row("fallback plan forced: box by grid row, text scored (5 km)", boxScan);
row("baseline: full scan, haversine + LIKE", baseline);
row("HTTP NDJSON, time to first line", http);
row("HTTP NDJSON, whole answer", httpDone);
console.log(`\nopening the data dir (migrations pending: ${fresh ? "new index" : "see below"}): ${(openMs / 1000).toFixed(1)} s`);
if (generatedSeconds !== undefined) console.log(`generating the index (${PLACES.toLocaleString("en")} place inserts through the triggers, then packing): ${generatedSeconds.toFixed(1)} s (${generatedCpuSeconds.toFixed(1)} CPU s)`);
console.log(
  `term index: ${termRows.toLocaleString("en")} postings (${tagRows.toLocaleString("en")} of them category tags)${termPages ? `, ${((termPages * pageSize) / 2 ** 20).toFixed(0)} MiB` : ""}` +
    `${postingsPages ? `; packed postings and their index ${((postingsPages * pageSize) / 2 ** 20).toFixed(0)} MiB` : ""}; database ${((pageCount * pageSize) / 2 ** 20).toFixed(0)} MiB`,
);
console.log(`exactness: ${compared} searches (5, 25, 100 km) ranked the same by the term index and by scoring every place of the box: ${mismatches.length === 0 ? "all identical" : `${mismatches.length} DIFFER: ${mismatches.join("; ")}`}`);
console.log(
  `early stop: ${earlyCompared} searches (25 and 100 km, relevance and distance, up to 3 pages) gave the same pages and next cursors as reading the whole circle: ${earlyMismatches.length === 0 ? "all identical" : `${earlyMismatches.length} DIFFER: ${earlyMismatches.join("; ")}`}`,
);
console.log(
  `whole circle / early stop, CPU: 25 km p50 ${(radiiFullCpu[25].p50 / radiiCpu[25].p50).toFixed(1)}× p95 ${(radiiFullCpu[25].p95 / radiiCpu[25].p95).toFixed(1)}×; ` +
    `100 km p50 ${(radiiFullCpu[100].p50 / radiiCpu[100].p50).toFixed(1)}× p95 ${(radiiFullCpu[100].p95 / radiiCpu[100].p95).toFixed(1)}×; target 100 km p95 < 15 ms: ${radiiCpu[100].p95 < 15 ? "met" : "NOT met"}`,
);
console.log(`load average during the run: ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")}`);
console.log(`\nbaseline / cold (p50): ${(baseline.p50 / cold.p50).toFixed(0)}×   baseline / warm (p50): ${(baseline.p50 / warm.p50).toFixed(0)}×`);
console.log(`target p95 < 10 ms (cold): ${cold.p95 < 10 ? "met" : "NOT met"}`);

console.log(`\nLead search on the real extracts (${extracts.places.toLocaleString("en")} places from ${extracts.files.join(", ")}), 5 km, centres at imported places\n`);
console.log("| measurement | p50 | p95 | n |");
console.log("|---|---|---|---|");
row("local provider, cold", extracts.cold);
row("local provider, warm", extracts.warm);
row("baseline: full scan, haversine + LIKE", extracts.baseline);
console.log(`\nbaseline / cold (p50): ${(extracts.baseline.p50 / extracts.cold.p50).toFixed(0)}×`);
