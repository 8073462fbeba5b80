// Did the search ENGINE get slower (issue 27, item 1)? The local provider alone, warm, in
// process, on two built checkouts side by side in one run: each side in its own child
// process (its own dist/ and its own 1M index, built by that checkout's bench), the same
// query mix (bench/search.js's: 10 keywords, centres near towns, 5 km), the sides
// interleaved A B A B A B so the machine's load hits both alike. Per side and round: CPU
// time per search and p50/p95 wall latency; then the medians of the rounds, the ratio B ÷ A,
// and whether both sides returned the same place ids in the same order for every query.
//
//   npm run build
//   node bench/search-engine-ab.js --a /work/old-checkout --a-data /tmp/old-1m --b . --b-data /tmp/new-1m
//   node bench/search-engine-ab.js ... --rounds 3 --queries 300 --passes 3
//   CPU_PROF=/tmp/prof node bench/search-engine-ab.js ...     (each child writes a V8 CPU profile)
//
// A checkout is recognised by where its provider lives: dist/places/search/local.js (now) or
// dist/providers/places/local.js (before the places engine moved, e.g. d130290). Each side's
// index must be one its own checkout built (the schemas differ); opening it runs no
// migration when it is current, but SQLite may touch its -wal/-shm files: point --b-data at
// a copy of an index you must not write to.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { queryCentres, summary } from "./_synthetic-places.js";

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    "a-data": { type: "string" },
    b: { type: "string" },
    "b-data": { type: "string" },
    rounds: { type: "string", default: "3" },
    queries: { type: "string", default: "300" },
    passes: { type: "string", default: "3" },
    child: { type: "string" },
    data: { type: "string" },
    dump: { type: "string" },
  },
});
const QUERIES = Number(args.queries);
const PASSES = Number(args.passes);
const KEYWORDS = ["restaurant", "dentist", "hairdresser", "cafe", "bakery", "italian restaurant", "hotels", "pharmacy", "Müller", "florist"];
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

/** One side: warm-up pass, then PASSES timed passes over the query mix; prints JSON. */
async function runChild(root, dataDir) {
  const dist = (path) => import(pathToFileURL(join(root, "dist", path)).href);
  const moved = existsSync(join(root, "dist/places/search/local.js"));
  const { openDatabase } = await dist("store/db.js");
  const { LocalPlaceProvider } = await dist(moved ? "places/search/local.js" : "providers/places/local.js");
  const db = openDatabase(join(dataDir, "outreach.db"));
  const provider = new LocalPlaceProvider(db);
  const signal = new AbortController().signal;
  const centres = queryCentres(QUERIES);
  const search = (i) => provider.search({ center: centres[i], radiusKm: 5, keywords: KEYWORDS[i % KEYWORDS.length], cursor: null, signal });
  // Warm-up: the vocabulary, statement caches, the page cache; also the result lists.
  const hash = createHash("sha256");
  const lists = [];
  let leads = 0;
  for (let i = 0; i < QUERIES; i++) {
    const page = await search(i);
    leads += page.leads.length;
    const list = `${i} ${KEYWORDS[i % KEYWORDS.length]}: ${page.leads.map((l) => l.placeId).join(",")}\n`;
    hash.update(list);
    lists.push(list);
  }
  // --dump FILE: the result lists themselves, to diff two checkouts (or before/after a
  // change), with, for the first 60 queries, 3 pages of 25 km in each order.
  if (args.dump) {
    for (let i = 0; i < Math.min(60, QUERIES); i++) {
      for (const sort of ["relevance", "distance", "name"]) {
        let cursor = null;
        for (let n = 1; n <= 3; n++) {
          const page = await provider.search({ center: centres[i], radiusKm: 25, keywords: KEYWORDS[i % KEYWORDS.length], cursor, signal, sort });
          lists.push(`${i} ${KEYWORDS[i % KEYWORDS.length]} 25 km ${sort} page ${n}: ${page.leads.map((l) => l.placeId).join(",")}\n`);
          cursor = page.nextCursor;
          if (!cursor) break;
        }
      }
    }
    writeFileSync(args.dump, lists.join(""));
  }
  const latencies = [];
  const cpu = process.cpuUsage();
  for (let pass = 0; pass < PASSES; pass++) {
    for (let i = 0; i < QUERIES; i++) {
      const t = performance.now();
      await search(i);
      latencies.push(performance.now() - t);
    }
  }
  const used = process.cpuUsage(cpu);
  const { p50, p95 } = summary(latencies);
  db.close();
  process.stdout.write(JSON.stringify({ cpuMs: (used.user + used.system) / 1000 / latencies.length, p50, p95, leads, results: hash.digest("hex").slice(0, 16) }));
}

function runSide(root, dataDir, round, label) {
  const execArgv = process.env.CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.CPU_PROF, "--cpu-prof-name", `${label}-${round}.cpuprofile`] : [];
  const out = execFileSync(process.execPath, [...execArgv, fileURLToPath(import.meta.url), "--child", root, "--data", dataDir, "--queries", String(QUERIES), "--passes", String(PASSES)], { encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(out);
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

if (args.child) {
  await runChild(resolve(args.child), resolve(args.data));
} else {
  const sides = [
    { label: "A", root: resolve(args.a), data: resolve(args["a-data"]), runs: [] },
    { label: "B", root: resolve(args.b), data: resolve(args["b-data"]), runs: [] },
  ];
  console.log(`search engine A/B: ${QUERIES} queries × ${PASSES} passes per run, 5 km, warm, in process`);
  for (const s of sides) console.log(`  ${s.label}: ${s.root}  (index ${s.data})`);
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const s of sides) {
      const r = runSide(s.root, s.data, round, s.label);
      s.runs.push(r);
      console.log(`  round ${round} ${s.label}: CPU ${r.cpuMs.toFixed(3)} ms/search, p50 ${r.p50.toFixed(3)} ms, p95 ${r.p95.toFixed(3)} ms, ${r.leads} leads, results ${r.results}  (load ${load()})`);
    }
  }
  const med = (s, key) => median(s.runs.map((r) => r[key]));
  console.log("\nmedians of the rounds:");
  for (const s of sides) console.log(`  ${s.label}: CPU ${med(s, "cpuMs").toFixed(3)} ms/search, p50 ${med(s, "p50").toFixed(3)} ms, p95 ${med(s, "p95").toFixed(3)} ms`);
  const [a, b] = sides;
  console.log(`  B ÷ A: CPU ${(med(b, "cpuMs") / med(a, "cpuMs")).toFixed(2)}, p50 ${(med(b, "p50") / med(a, "p50")).toFixed(2)}, p95 ${(med(b, "p95") / med(a, "p95")).toFixed(2)}  (load ${load()})`);
  const same = a.runs[0].results === b.runs[0].results;
  console.log(`  result lists (place ids, in order, every query): ${same ? "identical" : "DIFFERENT"} on both sides`);
}
