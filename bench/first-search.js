// The first lead search on a fresh machine against the second (issue 27, item 5: first ÷
// second ≤ 2). Each round: a fresh data directory with the Liechtenstein extract imported
// and a fresh cache directory (XDG_CACHE_HOME, where the category vocabulary is cached),
// then two `outreach leads search` processes one after the other, each timed from spawn to
// exit. Two builds in the same run, rounds interleaved: as built (the vocabulary shipped in
// dist/category-vocabulary.json) and as before it (that file moved aside for the round, so
// the first search builds the vocabulary and caches it). Medians of 3 (of each round's ratio);
// wall and CPU seconds (GNU time's user + system: steadier on a loaded machine); load average printed.
//
//   npm run build && node bench/first-search.js [--runs 3]
//
// Nothing leaves the machine: --source local, enrichment off, a point instead of a place name.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(values.runs);
const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "outreach.js");
const BUILT = join(ROOT, "dist", "category-vocabulary.json");
const ASIDE = `${BUILT}.bench-aside`;
const EXTRACT = resolve(ROOT, "../shared/data/liechtenstein-2026-03-29.osm.pbf");
if (!existsSync(BUILT)) throw new Error("dist/category-vocabulary.json is missing: run `npm run build` first");

const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Wall seconds from spawn to exit, and the CPU seconds the process used (user + system, from GNU time: steadier than wall time on a loaded machine). */
function outreach(args, env) {
  const started = performance.now();
  const cpuFile = join(tmpdir(), `outreach-bench-cpu-${process.pid}`);
  execFileSync("/usr/bin/time", ["-f", "%U %S", "-o", cpuFile, process.execPath, BIN, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  const seconds = (performance.now() - started) / 1000;
  const [user, system] = readFileSync(cpuFile, "utf8").trim().split(/\s+/).map(Number);
  rmSync(cpuFile, { force: true });
  return { seconds, cpu: user + system };
}

const SEARCH = ["leads", "search", "--keywords", "Zahnarzt", "--lat", "47.141", "--lng", "9.521", "--radius", "10", "--source", "local", "--json"];

/** One round: a fresh machine (data and cache), the import, then the first and the second search. */
function round(withBuiltVocabulary) {
  const dir = mkdtempSync(join(tmpdir(), "outreach-bench-first-"));
  if (!withBuiltVocabulary) renameSync(BUILT, ASIDE);
  try {
    const env = { ...process.env, OUTREACH_DATA_DIR: join(dir, "data"), XDG_CACHE_HOME: join(dir, "cache"), OUTREACH_ENRICH: "0", OUTREACH_SECRET_KEY: "" };
    execFileSync(process.execPath, [BIN, "places", "import", EXTRACT], { env, stdio: "ignore" });
    // The import itself may have cached the vocabulary: the machine is fresh for the search.
    rmSync(join(dir, "cache"), { recursive: true, force: true });
    const first = outreach(SEARCH, env);
    const second = outreach(SEARCH, env);
    return { first, second };
  } finally {
    if (!withBuiltVocabulary) renameSync(ASIDE, BUILT);
    rmSync(dir, { recursive: true, force: true });
  }
}

const variants = [
  ["built vocabulary in dist/ (this build)", true],
  ["no built vocabulary (before)", false],
];
const results = new Map(variants.map(([name]) => [name, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, built] of variants) {
    const r = round(built);
    results.get(name).push(r);
    process.stderr.write(`round ${i + 1}, ${name}: first ${r.first.seconds.toFixed(2)} s (${r.first.cpu.toFixed(2)} CPU s), second ${r.second.seconds.toFixed(2)} s (${r.second.cpu.toFixed(2)} CPU s) (load ${load()})\n`);
  }
}
console.log(`First search on a fresh machine ÷ the second, median of ${RUNS} (${new Date().toISOString()}, node ${process.version}, load average ${load()})`);
console.table(
  variants.map(([name]) => {
    const runs = results.get(name);
    return {
      build: name,
      "first s": median(runs.map((r) => r.first.seconds)).toFixed(2),
      "second s": median(runs.map((r) => r.second.seconds)).toFixed(2),
      "first ÷ second, wall": median(runs.map((r) => r.first.seconds / r.second.seconds)).toFixed(2),
      "first CPU s": median(runs.map((r) => r.first.cpu)).toFixed(2),
      "second CPU s": median(runs.map((r) => r.second.cpu)).toFixed(2),
      "first ÷ second, CPU": median(runs.map((r) => r.first.cpu / r.second.cpu)).toFixed(2),
    };
  }),
);
