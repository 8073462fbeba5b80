// Import benchmark: seconds and places/s for the Liechtenstein PBF and the Overture sample
// (median of 3 runs, each into a fresh data directory), the time spent reading alone, the
// ratio to `osmium tags-filter` over the same file in the same run (when osmium-tool is
// installed), and write throughput by batch size (places per transaction).
//
//   npm run build && node bench/import.js
//
// Reads the extracts from ../shared/data (never copied into the repo).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { importerFor } from "../dist/places/import/importers/index.js";
import { openInstance } from "../dist/services/instance.js";
import { toPlaceWrite } from "../dist/places/import/places-import.js";
import { PlacesRepo } from "../dist/places/store/places.js";
import { openDatabase } from "../dist/store/db.js";

const DATA = resolve(import.meta.dirname, "../../shared/data");
const FILES = [
  { label: "Liechtenstein PBF", path: join(DATA, "liechtenstein-2026-03-29.osm.pbf"), osmium: true },
  { label: "Overture sample", path: join(DATA, "overture-places-us-sample-3425.parquet"), osmium: false },
];
const RUNS = 3;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fresh = () => mkdtempSync(join(tmpdir(), "outreach-bench-"));
const env = { OUTREACH_SECRET_KEY: "" };

function hasOsmium() {
  try {
    execFileSync("osmium", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function timeImport(path) {
  const dir = fresh();
  const instance = openInstance({ dataDir: dir, env: { ...process.env, ...env } });
  try {
    const started = performance.now();
    const summary = await instance.services.placesImport.importFile(path);
    return { seconds: (performance.now() - started) / 1000, places: summary.total };
  } finally {
    instance.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timeRead(path) {
  const started = performance.now();
  const places = [];
  for await (const item of importerFor(path).read({})) if (item.kind === "place") places.push(item.place);
  return { seconds: (performance.now() - started) / 1000, places };
}

function timeOsmium(path) {
  const out = join(fresh(), "filtered.osm.pbf");
  const started = performance.now();
  execFileSync("osmium", ["tags-filter", path, "nwr/shop", "nwr/amenity", "nwr/craft", "nwr/office", "nwr/tourism", "nwr/healthcare", "-o", out, "--overwrite"], { stdio: "ignore" });
  const seconds = (performance.now() - started) / 1000;
  rmSync(out, { force: true });
  return seconds;
}

const osmium = hasOsmium();
const rows = [];
let writeSample = [];
for (const file of FILES) {
  await timeImport(file.path); // warm-up: module loading and JIT, not counted
  const imports = [];
  const reads = [];
  const osm = [];
  let places = 0;
  for (let i = 0; i < RUNS; i++) {
    const run = await timeImport(file.path);
    imports.push(run.seconds);
    places = run.places;
    const read = await timeRead(file.path);
    reads.push(read.seconds);
    writeSample = writeSample.concat(i === 0 ? read.places : []);
    if (osmium && file.osmium) osm.push(timeOsmium(file.path));
  }
  const seconds = median(imports);
  rows.push({
    file: file.label,
    places,
    "import s (median)": seconds.toFixed(3),
    "places/s": Math.round(places / seconds),
    "read only s": median(reads).toFixed(3),
    "osmium tags-filter s": osm.length ? median(osm).toFixed(3) : "n/a",
    "ours / osmium": osm.length ? (seconds / median(osm)).toFixed(1) + "×" : osmium ? "n/a (not OSM)" : "osmium not installed",
  });
}
console.log(`Import, median of ${RUNS} runs (${new Date().toISOString()}, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
console.table(rows);

// Write throughput by batch size, on the places read above (reading excluded).
const writes = writeSample.map((place) => toPlaceWrite(place));
const batchRows = [];
for (const size of [1, 100, 1000, 10000]) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = fresh();
    const db = openDatabase(join(dir, "bench.db"));
    const repo = new PlacesRepo(db);
    const source = repo.beginSource({ kind: "osm", name: "bench", dataDate: null, licence: "x", attribution: "x", now: new Date().toISOString() });
    const started = performance.now();
    for (let at = 0; at < writes.length; at += size) repo.upsertBatch(source.id, writes.slice(at, at + size), new Date().toISOString());
    times.push((performance.now() - started) / 1000);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = median(times);
  batchRows.push({ "batch size": size, places: writes.length, "write s (median)": seconds.toFixed(3), "places/s": Math.round(writes.length / seconds) });
}
console.log("Writes (insert into places and the stale-cell list via triggers; packing not included), by places per transaction");
console.table(batchRows);

// Where write time goes (profile, not a product path): the same batches into throwaway
// databases: first with the full-text index that migration 014 dropped put back (the
// baseline: what every write paid before), then as now, then without the stale-cell
// trigger and the cell index (migration 017 dropped the R*Tree).
const WITH_FTS = "+ FTS5, as before migration 014";
const variants = [WITH_FTS, "places + stale cells + cell index", "places only"];
const variantTimes = new Map(variants.map((v) => [v, []]));
// Variants interleaved run by run, so that warm-up and load changes fall on all of them alike.
for (let i = 0; i < RUNS; i++) {
  for (const variant of variants) {
    const dir = fresh();
    const db = openDatabase(join(dir, "bench.db"));
    if (variant === WITH_FTS) {
      db.exec(`CREATE VIRTUAL TABLE places_fts USING fts5(name, categories, cuisine, brand, description,
          content = 'places', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
        CREATE TRIGGER places_fts_ai AFTER INSERT ON places BEGIN
          INSERT INTO places_fts (rowid, name, categories, cuisine, brand, description)
            VALUES (new.id, new.name, new.category_text, coalesce(new.cuisine, ''), coalesce(new.brand, ''), coalesce(new.description, ''));
        END;`);
    }
    if (variant === "places only") db.exec("DROP TRIGGER places_stale_ai; DROP INDEX places_by_cell;");
    const repo = new PlacesRepo(db);
    const source = repo.beginSource({ kind: "osm", name: "bench", dataDate: null, licence: "x", attribution: "x", now: new Date().toISOString() });
    const started = performance.now();
    for (let at = 0; at < writes.length; at += 1000) repo.upsertBatch(source.id, writes.slice(at, at + 1000), "t");
    variantTimes.get(variant).push((performance.now() - started) / 1000);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const profileRows = variants.map((variant) => {
  const seconds = median(variantTimes.get(variant));
  return { "insert writes": variant, "write s (median)": seconds.toFixed(3), "places/s": Math.round(writes.length / seconds) };
});
console.log("Where write time goes (batch 1000)");
console.table(profileRows);
const [withFts, now] = profileRows.map((r) => Number(r["write s (median)"]));
console.log(`writes without the full-text index: ${(withFts / now).toFixed(2)}× as fast as with it (same run, same places)`);
