// Two ways to match category words in any language, measured side by side (issue 12):
//
//   A  index every word the vocabulary has for a place's category, in every language
//      ("Zahnarzt", "dentiste", "hammaslääkäri"… as words of the place's category text);
//   B  index a compact tag term per place ("#amenity=dentist") and turn the query's words
//      into tags at query time (what the search does).
//
// Both on the same places through the real schema and triggers: the synthetic index of
// bench/search.js (--places, default 20,000: A holds ≈ 200 words a place, so a million
// places would take hundreds of millions of rows; its figures scale linearly with the
// places) and the real extracts of ../shared/data. Reported: term rows, index bytes
// (dbstat), time to write the places, and cold 5 km search latency (fresh connection and
// provider per query; the vocabulary loaded once, as a running server has it) for category
// words in five languages.
//
//   npm run build && node bench/category-index.js [--places 20000] [--queries 200]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadCategoryVocabulary } from "../dist/places/vocabulary/category-vocabulary.js";
import { LocalPlaceProvider } from "../dist/places/search/local.js";
import { openInstance, resolveCacheDir } from "../dist/services/instance.js";
import { openDatabase } from "../dist/store/db.js";
import { PlacePostingsRepo } from "../dist/places/store/place-postings.js";
import { postingsCount } from "../dist/places/store/postings-codec.js";
import { CATEGORIES, insertSyntheticPlaces, queryCentres, summary } from "./_synthetic-places.js";

const { values: args } = parseArgs({ options: { places: { type: "string", default: "20000" }, queries: { type: "string", default: "200" } } });
const PLACES = Number(args.places);
const QUERIES = Number(args.queries);
const DATA = resolve(import.meta.dirname, "../../shared/data");
const EXTRACTS = ["helsinki-centre-2019-04.osm.pbf", "liechtenstein-2026-03-29.osm.pbf", "london-city-2020-07-20.osm.pbf", "monaco-2026-07-10.osm.pbf", "munich-altstadt-2020-07-20.osm.pbf"];
const WORDS = ["restaurant", "Zahnarzt", "ravintola", "pharmacie", "panetteria", "Friseur", "kahvila", "dentist", "Bäckerei", "ristorante"];

const vocabulary = loadCategoryVocabulary(resolveCacheDir());
const signal = new AbortController().signal;

/**
 * Representation A: every phrase of the vocabulary whose meaning a place's tags satisfy,
 * as words of its category text (so the search's word scans find them), and no tags.
 */
const phrasesByTagSet = new Map();
function expandedWords(tags) {
  const key = [...tags].sort().join(" ");
  let words = phrasesByTagSet.get(key);
  if (words) return words;
  const have = new Set(tags);
  const out = new Set();
  for (const [phrase, concept] of vocabulary.entries()) {
    if (concept.alternatives.some((a) => a.every((t) => have.has(t)))) for (const w of phrase.split(" ")) out.add(w);
  }
  words = [...out].join(" ");
  phrasesByTagSet.set(key, words);
  return words;
}

function sizeMiB(db, tables) {
  try {
    const pages = db.prepare(`SELECT count(*) FROM dbstat WHERE name IN (${tables.map(() => "?").join(", ")})`).pluck().get(...tables);
    return (pages * db.pragma("page_size", { simple: true })) / 2 ** 20;
  } catch {
    return NaN;
  }
}

/** One representation's figures on a database file. */
async function measure(file, seconds, centres) {
  const db = openDatabase(file);
  // Postings (one per place and term) in the packed index, each BLOB led by its count (migration 017 dropped place_terms).
  const rows = db.prepare("SELECT postings FROM place_postings").pluck().all().reduce((n, blob) => n + postingsCount(blob), 0);
  const places = db.prepare("SELECT count(*) FROM places").pluck().get();
  const termsMiB = sizeMiB(db, ["place_terms"]);
  const postingsMiB = sizeMiB(db, ["place_postings", "place_postings_by_term"]);
  db.close();
  const samples = [];
  const found = [];
  for (const [i, center] of centres.entries()) {
    const connection = openDatabase(file);
    try {
      const provider = new LocalPlaceProvider(connection, { vocabulary: () => vocabulary });
      const t = performance.now();
      const page = await provider.search({ center, radiusKm: 5, keywords: WORDS[i % WORDS.length], cursor: null, signal });
      samples.push(performance.now() - t);
      found.push(page.leads.length);
    } finally {
      connection.close();
    }
  }
  return { places, rows, termsMiB, postingsMiB, seconds, latency: summary(samples), leads: found.reduce((a, b) => a + b, 0) };
}

function freshDb() {
  const dir = mkdtempSync(join(tmpdir(), "outreach-bench-category-"));
  return { dir, file: join(dir, "outreach.db") };
}

const results = [];
const cleanup = [];
try {
  // Synthetic places, each representation written the same way.
  const centres = queryCentres(QUERIES);
  for (const [label, columns] of [
    ["B: tag terms, words → tags at query time", (labels) => ({ text: labels.join(" "), tags: vocabulary.tagsOfLabels(labels).join(" ") })],
    ["A: every language's words indexed per place", (labels) => ({ text: `${labels.join(" ")} ${expandedWords(vocabulary.tagsOfLabels(labels))}`, tags: "" })],
  ]) {
    const { dir, file } = freshDb();
    cleanup.push(dir);
    const db = openDatabase(file);
    const seconds = await insertSyntheticPlaces(db, PLACES, columns);
    db.close();
    results.push({ data: `synthetic ${PLACES.toLocaleString("en")}`, label, ...(await measure(file, seconds, centres)) });
  }

  // The real extracts: imported once (B), then the same rows written into two fresh databases.
  const { dir: importDir } = freshDb();
  cleanup.push(importDir);
  const imported = openInstance({ dataDir: importDir, env: { HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME }, config: { rateLimitPerMinute: 0, enrich: false } });
  for (const file of EXTRACTS) await imported.services.placesImport.importFile(join(DATA, file));
  const rows = imported.services.deps.db.prepare("SELECT * FROM places ORDER BY id").all();
  imported.close();
  const realCentres = Array.from({ length: QUERIES }, (_, i) => rows[(i * 7919) % rows.length]).map((r) => ({ lat: r.lat, lng: r.lng }));
  for (const [label, columns] of [
    ["B: tag terms, words → tags at query time", (r) => [r.category_text, r.category_tags]],
    ["A: every language's words indexed per place", (r) => [`${r.category_text} ${expandedWords(r.category_tags.split(" ").filter(Boolean))}`, ""]],
  ]) {
    const { dir, file } = freshDb();
    cleanup.push(dir);
    const db = openDatabase(file);
    const source = db.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('osm', 'extracts', 'ODbL-1.0', 'OSM', 't')").run().lastInsertRowid;
    const insert = db.prepare(`INSERT INTO places (place_id, source_id, name, address, lat, lng, categories, category_text, category_tags, cuisine, brand, description, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 't')`);
    const started = performance.now();
    db.transaction(() => {
      for (const r of rows) insert.run(r.place_id, source, r.name, r.address, r.lat, r.lng, r.categories, ...columns(r), r.cuisine, r.brand, r.description);
    })();
    new PlacePostingsRepo(db).refresh();
    const seconds = (performance.now() - started) / 1000;
    db.close();
    results.push({ data: `real extracts`, label, ...(await measure(file, seconds, realCentres)) });
  }
} finally {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
}

const f = (x, digits = 1) => (Number.isNaN(x) ? "n/a" : x.toFixed(digits));
console.log(`\nCategory words in any language: indexing every word (A) or a tag term per place (B)`);
console.log(`(${QUERIES} cold 5 km searches per row over ${WORDS.join(", ")}; ${CATEGORIES.length} synthetic categories; load ${loadavg().map((l) => l.toFixed(1)).join(" ")})\n`);
console.log("| data | representation | places | term rows | rows per place | terms MiB | postings MiB | write s | p50 ms | p95 ms | leads found |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of results) {
  console.log(
    `| ${r.data} | ${r.label} | ${r.places.toLocaleString("en")} | ${r.rows.toLocaleString("en")} | ${f(r.rows / r.places)} | ${f(r.termsMiB)} | ${f(r.postingsMiB)} | ${f(r.seconds, 2)} | ${f(r.latency.p50, 2)} | ${f(r.latency.p95, 2)} | ${r.leads} |`,
  );
}
for (const data of new Set(results.map((r) => r.data))) {
  const [b, a] = results.filter((r) => r.data === data);
  console.log(`\n${data}: A / B — term rows ${f(a.rows / b.rows)}×, index bytes ${f((a.termsMiB + a.postingsMiB) / (b.termsMiB + b.postingsMiB))}×, write time ${f(a.seconds / b.seconds)}×, p50 ${f(a.latency.p50 / b.latency.p50, 2)}×, p95 ${f(a.latency.p95 / b.latency.p95, 2)}×`);
}
