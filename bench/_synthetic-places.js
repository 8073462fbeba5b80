// The synthetic places index of the search benchmarks: a deterministic generator of
// business-like places around a few hundred towns of central Europe (Zipf-like sizes,
// a category mix roughly as in OSM business POIs), and queries near those towns. One
// module so that every bench measures the same index. Plain Node ESM over dist/.
import { PlacePostingsRepo } from "../dist/places/store/place-postings.js";

let seed = 42;
/** Restart the generator at a known point (each phase of a bench seeds its own). */
export function reseed(value) {
  seed = value;
}
export function random() {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
}
export function gaussian() {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

/** [labels, share, name words]: the category mix. */
export const CATEGORIES = [
  [["restaurant"], 0.12, ["Ristorante", "Gasthaus", "Restaurant", "Bistro", "Trattoria"]],
  [["restaurant", "italian restaurant"], 0.04, ["Pizzeria", "Ristorante", "Trattoria"]],
  [["cafe"], 0.06, ["Café", "Coffee", "Kaffeehaus"]],
  [["bar"], 0.05, ["Bar", "Pub", "Lounge"]],
  [["fast food"], 0.05, ["Kebab", "Burger", "Imbiss"]],
  [["hairdresser"], 0.06, ["Salon", "Coiffeur", "Hair"]],
  [["bakery"], 0.04, ["Bäckerei", "Bakery", "Boulangerie"]],
  [["supermarket"], 0.04, ["Markt", "Supermarket", "Spar"]],
  [["pharmacy"], 0.02, ["Apotheke", "Pharmacy"]],
  [["dentist"], 0.015, ["Zahnarzt", "Dental", "Dentists"]],
  [["doctor"], 0.03, ["Praxis", "Medical", "Clinic"]],
  [["hotel"], 0.03, ["Hotel", "Gasthof", "Pension"]],
  [["clothes shop"], 0.07, ["Mode", "Fashion", "Boutique"]],
  [["car repair"], 0.04, ["Garage", "Autohaus", "Werkstatt"]],
  [["bank"], 0.02, ["Bank", "Sparkasse"]],
  [["kiosk"], 0.03, ["Kiosk", "Tabak"]],
  [["florist"], 0.015, ["Blumen", "Florist"]],
  [["lawyer"], 0.02, ["Kanzlei", "Law"]],
  [["accountant"], 0.02, ["Treuhand", "Accounting"]],
  [["electrician"], 0.02, ["Elektro", "Electric"]],
  [["plumber"], 0.02, ["Sanitär", "Plumbing"]],
  [["optician"], 0.01, ["Optik", "Optician"]],
  [["butcher"], 0.01, ["Metzgerei", "Butcher"]],
  [["fitness centre"], 0.015, ["Fitness", "Gym"]],
  [["veterinary"], 0.01, ["Tierarzt", "Vet"]],
  [["office"], 0.15, ["Consulting", "Services", "Office", "Partners"]],
];
const SURNAMES = ["Müller", "Meier", "Schmid", "Keller", "Weber", "Huber", "Schneider", "Fischer", "Wolf", "Rossi", "Bianchi", "Martin", "Bernard", "Dubois", "Frick", "Beck", "Wanger", "Marxer", "Büchel", "Ospelt"];
const cumulative = [];
{
  let sum = 0;
  for (const c of CATEGORIES) cumulative.push((sum += c[1]));
  for (let i = 0; i < cumulative.length; i++) cumulative[i] /= sum;
}
function category() {
  const r = random();
  return CATEGORIES[cumulative.findIndex((c) => r <= c)] ?? CATEGORIES[0];
}

/** A few hundred towns in central Europe with Zipf-like sizes; places cluster around them. */
function towns() {
  seed = 7;
  const list = [];
  for (let i = 0; i < 400; i++) {
    list.push({ lat: 45 + random() * 8, lng: 5 + random() * 12, weight: 1 / (i + 1) ** 0.9, sigmaKm: 1.5 + 6 * (1 / Math.sqrt(i + 1)) });
  }
  const total = list.reduce((s, t) => s + t.weight, 0);
  let acc = 0;
  for (const t of list) t.cum = (acc += t.weight / total);
  return list;
}
export const TOWNS = towns();
export function pickTown() {
  const r = random();
  return TOWNS.find((t) => r <= t.cum) ?? TOWNS[TOWNS.length - 1];
}

/**
 * Write `count` synthetic places through the real schema (the term index's triggers
 * included), then pack the postings as an import does when it ends (on threads).
 * `categoryColumns` gives a category's `category_text` and `category_tags`. Resolves to the
 * seconds it took.
 */
export async function insertSyntheticPlaces(db, count, categoryColumns) {
  const started = performance.now();
  const source = db
    .prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('csv', 'synthetic-bench', 'CC0', 'synthetic', ?)")
    .run(new Date().toISOString()).lastInsertRowid;
  const insert = db.prepare(`INSERT INTO places (place_id, source_id, name, address, city, country, lat, lng, website, phone, categories, category_text, category_tags, updated_at)
    VALUES (?, ?, ?, ?, ?, 'DE', ?, ?, ?, ?, ?, ?, ?, '2026-11-22T00:00:00.000Z')`);
  const columns = new Map(CATEGORIES.map(([labels]) => [labels, categoryColumns(labels)]));
  seed = 1234;
  const batch = 50_000;
  for (let start = 0; start < count; start += batch) {
    db.transaction(() => {
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const town = pickTown();
        const [labels, , words] = category();
        const lat = town.lat + (gaussian() * town.sigmaKm) / 111.2;
        const lng = town.lng + (gaussian() * town.sigmaKm) / (111.2 * Math.cos((town.lat * Math.PI) / 180));
        const name = `${SURNAMES[Math.floor(random() * SURNAMES.length)]} ${words[Math.floor(random() * words.length)]}`;
        const website = random() < 0.3 ? `https://www.example-${i}.de/` : null;
        const { text, tags } = columns.get(labels);
        insert.run(`bench:${i}`, source, name, `Hauptstrasse ${i % 200}, Town ${TOWNS.indexOf(town)}`, `Town ${TOWNS.indexOf(town)}`, lat, lng, website, random() < 0.4 ? "+49 30 1234567" : null, JSON.stringify(labels), text, tags);
      }
    })();
    process.stderr.write(`\rgenerating ${Math.min(count, start + batch).toLocaleString("en")} places…`);
  }
  const packStarted = performance.now();
  const packCpu = process.cpuUsage();
  await new PlacePostingsRepo(db).refreshInParallel();
  const packUsed = process.cpuUsage(packCpu);
  const packSeconds = (performance.now() - packStarted) / 1000;
  db.exec("ANALYZE;");
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(` done in ${seconds.toFixed(1)} s (packing the postings: ${packSeconds.toFixed(1)} s, ${((packUsed.user + packUsed.system) / 1e6).toFixed(1)} CPU s)\n`);
  return seconds;
}

/** Query centres near (not on) town centres, where users search, the towns weighted by size. */
export function queryCentres(n, startSeed = 99) {
  seed = startSeed;
  return Array.from({ length: n }, () => {
    const town = pickTown();
    return { lat: town.lat + gaussian() * 0.01, lng: town.lng + gaussian() * 0.01 };
  });
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
export function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), n: s.length };
}
