// A user's own list (NDJSON, CSV) against an OSM extract (PBF) holding the same places,
// imported end to end (`PlacesImportService.importFile`, as `places import` does: read,
// write in batches, pack the search index, rebuild the localities) into a fresh data
// directory each, side by side in one run: places per second, peak RSS, and each list's
// speed as a ratio to the PBF's. Issue 27, item 4: NDJSON ≥ 20,000 places/s at 300k
// places, peak RSS < 1 GB.
//
//   npm run build && node bench/list-import.js [--places 300000] [--runs 3] [--formats ndjson,csv,pbf] [--baseline DIR]
//
// --baseline DIR: also import the lists with the build in DIR/dist (another commit's tree,
// built: `git archive REV | tar -x -C DIR`, node_modules linked, `npx tsc` there), in the
// same rounds: before and after side by side.
// The three files are synthetic and deterministic (no data needed), written to /tmp and
// removed afterwards: a business mix around 400 towns (bench/_synthetic-places.js), each
// with a category, 55 % with an address, 30 % a website, 35 % a phone. Each import runs in a
// child process of its own, so its peak RSS (getrusage's maxrss) is its own; runs of the
// formats are interleaved, so load changes fall on all of them alike.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { CATEGORIES, gaussian, pickTown, random, reseed, TOWNS } from "./_synthetic-places.js";
import { PbfWriter } from "./_pbf-writer.js";

const { values } = parseArgs({
  options: {
    places: { type: "string", default: "300000" },
    runs: { type: "string", default: "3" },
    formats: { type: "string", default: "ndjson,csv,pbf" },
    baseline: { type: "string" },
    child: { type: "string" },
    dist: { type: "string" },
  },
});

if (values.child) {
  // One import into a fresh data directory; prints its figures as JSON.
  const { openInstance } = await import(pathToFileURL(join(values.dist ?? join(import.meta.dirname, "..", "dist"), "services", "instance.js")).href);
  const dir = mkdtempSync(join(tmpdir(), "outreach-bench-list-"));
  const instance = openInstance({ dataDir: dir, env: { ...process.env, OUTREACH_SECRET_KEY: "" } });
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const summary = await instance.services.placesImport.importFile(values.child);
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(JSON.stringify({ seconds, places: summary.total, rejected: summary.rejectedRows.length, cpu: (used.user + used.system) / 1e6, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + "\n");
  } finally {
    instance.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

const N = Number(values.places);
const RUNS = Number(values.runs);
const FORMATS = values.formats.split(",");

/** OSM tags for each label set of the category mix (the PBF's places say what the lists' labels say). */
const OSM_TAGS = {
  restaurant: ["amenity", "restaurant"], "italian restaurant": ["cuisine", "italian"], cafe: ["amenity", "cafe"], bar: ["amenity", "bar"],
  "fast food": ["amenity", "fast_food"], hairdresser: ["shop", "hairdresser"], bakery: ["shop", "bakery"], supermarket: ["shop", "supermarket"],
  pharmacy: ["amenity", "pharmacy"], dentist: ["amenity", "dentist"], doctor: ["amenity", "doctors"], hotel: ["tourism", "hotel"],
  "clothes shop": ["shop", "clothes"], "car repair": ["shop", "car_repair"], bank: ["amenity", "bank"], kiosk: ["shop", "kiosk"],
  florist: ["shop", "florist"], lawyer: ["office", "lawyer"], accountant: ["office", "accountant"], electrician: ["craft", "electrician"],
  plumber: ["craft", "plumber"], optician: ["shop", "optician"], butcher: ["shop", "butcher"], "fitness centre": ["leisure", "fitness_centre"],
  veterinary: ["amenity", "veterinary"], office: ["office", "company"],
};
const SURNAMES = ["Müller", "Meier", "Schmid", "Keller", "Weber", "Huber", "Schneider", "Fischer", "Wolf", "Rossi", "Bianchi", "Martin"];
const STREETS = ["Hauptstraße", "Bahnhofstraße", "Kirchweg", "Marktplatz", "Schulstraße", "Gartenweg"];

function* syntheticPlaces() {
  reseed(2027);
  const weights = CATEGORIES.map((c) => c[1]);
  const total = weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < N; i++) {
    const town = pickTown();
    let r = random() * total;
    const [labels, , words] = CATEGORIES.find((c) => (r -= c[1]) <= 0) ?? CATEGORIES[0];
    const townIndex = TOWNS.indexOf(town);
    yield {
      id: i,
      name: `${SURNAMES[Math.floor(random() * SURNAMES.length)]} ${words[Math.floor(random() * words.length)]}`,
      lat: Math.round((town.lat + (gaussian() * town.sigmaKm) / 111.2) * 1e7) / 1e7,
      lng: Math.round((town.lng + (gaussian() * town.sigmaKm) / 80) * 1e7) / 1e7,
      labels,
      address: random() < 0.55 ? { street: STREETS[i % STREETS.length], housenumber: String(1 + (i % 120)), postcode: String(10000 + townIndex * 7), city: `Town ${townIndex}` } : null,
      website: random() < 0.3 ? `https://www.business-${i}.de/` : null,
      phone: random() < 0.35 ? `+49 30 ${1000000 + (i % 8999999)}` : null,
    };
  }
}

async function writeLines(path, lines) {
  const out = createWriteStream(path);
  for (const line of lines) if (!out.write(line)) await new Promise((resolve) => out.once("drain", resolve));
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
}

function* ndjsonLines() {
  for (const p of syntheticPlaces()) {
    yield JSON.stringify({ placeId: `b${p.id}`, name: p.name, lat: p.lat, lng: p.lng, categories: p.labels, ...p.address, country: "DE", website: p.website, phone: p.phone }) + "\n";
  }
}

const CSV_COLUMNS = ["place_id", "name", "lat", "lng", "categories", "street", "housenumber", "postcode", "city", "country", "website", "phone"];
const csvCell = (value) => (value === null || value === undefined ? "" : /[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
function* csvLines() {
  yield CSV_COLUMNS.join(",") + "\n";
  for (const p of syntheticPlaces()) {
    const a = p.address ?? {};
    yield [`b${p.id}`, p.name, p.lat, p.lng, p.labels.join(";"), a.street, a.housenumber, a.postcode, a.city, "DE", p.website, p.phone].map(csvCell).join(",") + "\n";
  }
}

function writePbf(path) {
  const writer = new PbfWriter(path);
  for (const p of syntheticPlaces()) {
    const tags = [["name", p.name], ...p.labels.map((label) => OSM_TAGS[label])];
    if (p.address) tags.push(["addr:street", p.address.street], ["addr:housenumber", p.address.housenumber], ["addr:postcode", p.address.postcode], ["addr:city", p.address.city]);
    if (p.website) tags.push(["website", p.website]);
    if (p.phone) tags.push(["phone", p.phone]);
    writer.addNode(p.id + 1, p.lat, p.lng, tags);
  }
  writer.close();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

const work = mkdtempSync(join(tmpdir(), "outreach-bench-lists-"));
try {
  const files = {
    ndjson: join(work, "bench-list.ndjson"),
    csv: join(work, "bench-list.csv"),
    pbf: join(work, "bench-list.osm.pbf"),
  };
  process.stderr.write(`writing ${N.toLocaleString("en")} places as ${FORMATS.join(", ")}…\n`);
  if (FORMATS.includes("ndjson")) await writeLines(files.ndjson, ndjsonLines());
  if (FORMATS.includes("csv")) await writeLines(files.csv, csvLines());
  if (FORMATS.includes("pbf")) writePbf(files.pbf);
  // Each variant: a file and the build that imports it.
  const variants = FORMATS.map((format) => ({ name: format, file: files[format], dist: [] }));
  if (values.baseline) {
    for (const format of FORMATS.filter((f) => f !== "pbf")) variants.push({ name: `${format} @ baseline`, file: files[format], dist: ["--dist", join(values.baseline, "dist")] });
  }
  const runs = Object.fromEntries(variants.map((v) => [v.name, []]));
  const loads = [];
  for (let round = 0; round < RUNS; round++) {
    for (const { name: format, file, dist } of variants) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", file, ...dist], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
      const run = JSON.parse(out.trim().split("\n").pop());
      runs[format].push(run);
      loads.push(loadavg()[0]);
      process.stderr.write(`round ${round + 1} ${format}: ${run.places.toLocaleString("en")} places in ${run.seconds.toFixed(2)} s, peak RSS ${run.maxRssMb.toFixed(0)} MB (load ${load()})\n`);
    }
  }
  const pbfRate = runs.pbf ? N / median(runs.pbf.map((r) => r.seconds)) : null;
  const rows = variants.map(({ name: format }) => {
    const seconds = median(runs[format].map((r) => r.seconds));
    const rate = runs[format][0].places / seconds;
    return {
      format,
      places: runs[format][0].places,
      "import s (median)": seconds.toFixed(2),
      "places/s": Math.round(rate),
      "CPU s (median)": median(runs[format].map((r) => r.cpu)).toFixed(1),
      "peak RSS MB (max)": Math.max(...runs[format].map((r) => r.maxRssMb)).toFixed(0),
      "÷ PBF places/s": pbfRate ? (rate / pbfRate).toFixed(2) : "n/a",
    };
  });
  console.log(`List import end to end, ${N.toLocaleString("en")} places, median of ${RUNS} (${new Date().toISOString()}, node ${process.version}, load average ${load()}, 1-min load during runs ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)})`);
  console.table(rows);
} finally {
  rmSync(work, { recursive: true, force: true });
}
