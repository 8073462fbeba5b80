// Country-scale import: a synthetic country extract (bench/synthetic-country-pbf.js:
// ≥ 40 M nodes, ~2 M businesses) imported into a fresh data directory, then re-imported
// unchanged, then a newer revision of it imported on top; each in its own process so that
// its peak RSS is its own. Prints PBF MB/s read, places/s stored end to end, peak RSS,
// the database's size by table (SQLite's dbstat) and, measured in the same run on the
// same file: `osmium tags-filter` (the businesses' keys) and our read pass alone.
//
//   npm run build && node bench/country-import.js [--pbf /tmp/country.osm.pbf] [--nodes 40000000] [--businesses 2100000] [--runs 1] [--keep DIR] [--no-revision]
//
// The extract (and its revision, outreach-revision-1/FILE beside it) is generated when
// missing and kept for later runs; they and the data directories stay outside the
// repository (/tmp by default). Load average is printed: the machine is shared.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { writeSyntheticCountry } from "./synthetic-country-pbf.js";

const { values: args } = parseArgs({
  options: {
    pbf: { type: "string", default: join(tmpdir(), "outreach-country.osm.pbf") },
    nodes: { type: "string", default: "40000000" },
    businesses: { type: "string", default: "2100000" },
    runs: { type: "string", default: "1" },
    // Leave out the import of the next revision (a full read and diff: as long as a fresh import).
    "no-revision": { type: "boolean", default: false },
    keep: { type: "string" },
    // Internal: run one import in this process and print its figures as JSON.
    child: { type: "string" },
    "data-dir": { type: "string" },
  },
});

const MiB = 2 ** 20;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (args.child) {
  // One import (or read pass) in its own process: its peak RSS is its own.
  const started = performance.now();
  let figures;
  if (args.child === "read") {
    const { importerFor } = await import("../dist/places/import/importers/index.js");
    let places = 0;
    for await (const item of importerFor(args.pbf).read({})) if (item.kind === "place") places++;
    figures = { places };
  } else {
    const { openInstance } = await import("../dist/services/instance.js");
    const instance = openInstance({ dataDir: args["data-dir"], env: { ...process.env, OUTREACH_SECRET_KEY: "" } });
    let last = 0;
    const summary = await instance.services.placesImport.importFile(args.pbf, {
      onProgress: (p) => {
        const now = performance.now();
        if (now - last < 5000) return;
        last = now;
        process.stderr.write(`  ${((now - started) / 1000).toFixed(0)} s: ${JSON.stringify(p)}\n`);
      },
    });
    instance.close();
    figures = { places: summary.total, added: summary.added, updated: summary.updated, unchanged: summary.unchanged, removed: summary.removed };
  }
  const seconds = (performance.now() - started) / 1000;
  const usage = process.resourceUsage();
  // CPU seconds too: on a shared 2-core machine the wall time says more about the neighbours.
  console.log(JSON.stringify({ ...figures, seconds, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, peakRssMiB: usage.maxRSS / 1024 }));
  process.exit(0);
}

function ensureExtract(path, revision) {
  if (existsSync(path)) return;
  process.stderr.write(`writing ${path} (revision ${revision})…\n`);
  const started = performance.now();
  const info = writeSyntheticCountry(path, { nodes: Number(args.nodes), businesses: Number(args.businesses), revision, onProgress: (s) => process.stderr.write(`\r  ${s}…   `) });
  process.stderr.write(`\n  ${JSON.stringify(info)} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

function child(mode, pbf, dataDir) {
  const run = spawnSync(process.execPath, [import.meta.filename, "--child", mode, "--pbf", pbf, ...(dataDir ? ["--data-dir", dataDir] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (run.status !== 0) throw new Error(`${mode} of ${pbf} failed (exit ${run.status})`);
  return JSON.parse(run.stdout.trim().split("\n").pop());
}

/** `osmium tags-filter` on the businesses' keys, timed by /usr/bin/time (wall, CPU, peak RSS). */
function osmium(pbf) {
  const out = join(mkdtempSync(join(tmpdir(), "outreach-osmium-")), "filtered.osm.pbf");
  const filter = ["tags-filter", pbf, "nwr/shop", "nwr/amenity", "nwr/craft", "nwr/office", "nwr/tourism", "nwr/healthcare", "nwr/leisure", "-o", out, "--overwrite"];
  const run = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", "osmium", ...filter], { encoding: "utf8" });
  rmSync(out, { force: true });
  if (run.status !== 0) throw new Error(`osmium failed: ${run.stderr}`);
  const [wall, user, sys, rssKiB] = run.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { seconds: wall, cpuSeconds: user + sys, peakRssMiB: rssKiB / 1024 };
}

/** Bytes per table and index (dbstat), largest first, and the file's size. */
async function sizes(dataDir) {
  const { default: Database } = await import("better-sqlite3");
  const file = join(dataDir, "outreach.db");
  const db = new Database(file, { readonly: true });
  const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").all();
  db.close();
  const wal = existsSync(file + "-wal") ? statSync(file + "-wal").size : 0;
  return { fileMiB: statSync(file).size / MiB, walMiB: wal / MiB, tables: rows.filter((r) => r.bytes > 1 * MiB).map((r) => ({ name: r.name, MiB: +(r.bytes / MiB).toFixed(1) })) };
}

// The newer extract has the same file name (a source is its file name, as a re-downloaded
// `germany-latest.osm.pbf` has), in a sibling directory.
const revisionPath = join(dirname(args.pbf), "outreach-revision-1", basename(args.pbf));
mkdirSync(dirname(revisionPath), { recursive: true });
ensureExtract(args.pbf, 0);
ensureExtract(revisionPath, 1);
const pbfMiB = statSync(args.pbf).size / MiB;
const runs = Number(args.runs);
const hasOsmium = spawnSync("osmium", ["--version"]).status === 0;

const fresh = [];
const again = [];
const revision = [];
const reads = [];
const osm = [];
let table;
for (let i = 0; i < runs; i++) {
  if (hasOsmium) osm.push(osmium(args.pbf));
  reads.push(child("read", args.pbf));
  const dataDir = args.keep && i === runs - 1 ? args.keep : mkdtempSync(join(tmpdir(), "outreach-country-"));
  fresh.push(child("import", args.pbf, dataDir));
  if (i === runs - 1) table = await sizes(dataDir);
  again.push(child("import", args.pbf, dataDir));
  if (!args["no-revision"]) revision.push(child("import", revisionPath, dataDir));
  if (!(args.keep && i === runs - 1)) rmSync(dataDir, { recursive: true, force: true });
}

const med = (list, key) => median(list.map((r) => r[key]));
const importS = med(fresh, "seconds");
const places = fresh[0].places;
console.log(`Country import, ${runs} run(s), median (${new Date().toISOString()}, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
console.log(`extract: ${args.pbf}, ${pbfMiB.toFixed(0)} MiB`);
const row = (step, list, extra = {}) => {
  const seconds = med(list, "seconds");
  return { step, "wall s": seconds.toFixed(1), "CPU s": med(list, "cpuSeconds").toFixed(1), "PBF MB/s": (pbfMiB / seconds).toFixed(1), "peak RSS MiB": med(list, "peakRssMiB").toFixed(0), ...extra };
};
console.table([
  ...(hasOsmium ? [row("osmium tags-filter (baseline)", osm)] : []),
  row("our read pass alone", reads, { places: reads[0].places }),
  row("fresh import", fresh, { places, "places/s": Math.round(places / importS), "places/CPU s": Math.round(places / med(fresh, "cpuSeconds")) }),
  row("re-import, unchanged", again, { places: again[0].places, changed: `+${again[0].added} ~${again[0].updated} -${again[0].removed}` }),
  ...(revision.length ? [row("import of the next revision", revision, { places: revision[0].places, changed: `+${revision[0].added} ~${revision[0].updated} -${revision[0].removed}` })] : []),
]);
if (hasOsmium) console.log(`fresh import / osmium tags-filter: ${(importS / med(osm, "seconds")).toFixed(1)}× wall, ${(med(fresh, "cpuSeconds") / med(osm, "cpuSeconds")).toFixed(1)}× CPU`);
console.log(`re-import unchanged / fresh import: ${((100 * med(again, "seconds")) / importS).toFixed(0)} % wall, ${((100 * med(again, "cpuSeconds")) / med(fresh, "cpuSeconds")).toFixed(0)} % CPU`);
console.log(`database after the fresh import: ${table.fileMiB.toFixed(0)} MiB (+ WAL ${table.walMiB.toFixed(0)} MiB)`);
console.table(table.tables);
