// Lead search quality against ground truth computed from OSM tags, independently of our
// importer and matcher: recall and precision per language (English, German, French,
// Finnish, Italian) on the five real extracts of ../shared/data, every query's figures,
// and the misses with their tags.
//
//   npm run build && node bench/search-quality.js [--misses 8] [--only bar,Zahnarzt]
//
// Truth: `osmium export` (osmium-tool: `apt-get install -y osmium-tool`) turns each extract
// into GeoJSON features with their tags; a feature is a named business of a query when it
// has a `name` (or `brand`) and its tags match the query's concept in the table below,
// written by hand from the OSM wiki's meaning of the word (Zahnarzt → amenity=dentist |
// healthcare=dentist), not from the vocabulary the search uses. Its point is the mean of
// its geometry's distinct vertices. Truth inside the circle (haversine, computed here) is
// what a search around the area's centre should return.
//
// OSM maps some businesses twice (a node and its building, two nodes of one shop): truth
// counts one business per group of features with the same name and either the same
// street address or at most 30 m apart (this file's own rule); finding any of them finds it.
//
// The search under test: the extracts imported through the real importer into a fresh
// data directory, every page of each search through the local provider (deduplicated as
// the API returns them). Precision counts a result right when its tags match the concept;
// the lenient precision also forgives a result whose name holds the query word (a
// "Pizzeria" tagged only as a restaurant, for "pizzeria").
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openInstance } from "../dist/services/instance.js";

const { values: args } = parseArgs({ options: { misses: { type: "string", default: "6" }, only: { type: "string" } } });
const DATA = resolve(import.meta.dirname, "../../shared/data");

/** The areas searched: each extract's centre, with a radius that stays inside the extract. */
const AREAS = [
  { file: "munich-altstadt-2020-07-20.osm.pbf", label: "München Altstadt", center: { lat: 48.1374, lng: 11.5759 }, radiusKm: 0.6 },
  { file: "helsinki-centre-2019-04.osm.pbf", label: "Helsinki centre", center: { lat: 60.1716, lng: 24.9443 }, radiusKm: 0.45 },
  { file: "london-city-2020-07-20.osm.pbf", label: "City of London", center: { lat: 51.517, lng: -0.1037 }, radiusKm: 0.65 },
  { file: "liechtenstein-2026-03-29.osm.pbf", label: "Liechtenstein (Vaduz)", center: { lat: 47.141, lng: 9.5209 }, radiusKm: 5 },
  { file: "monaco-2026-07-10.osm.pbf", label: "Monaco", center: { lat: 43.7384, lng: 7.4246 }, radiusKm: 3 },
];

/** Tag predicates by concept, from the OSM wiki: any of [key, values] (values "*" = any value; `;` lists split). */
const any = (...pairs) => (tags) => pairs.some(([key, values]) => (tags[key] ?? "").split(";").some((v) => values.includes(v.trim())));
const food = ["restaurant", "fast_food"];
const CONCEPTS = {
  restaurant: any(["amenity", ["restaurant"]]),
  cafe: any(["amenity", ["cafe"]]),
  bar: any(["amenity", ["bar"]]),
  pub: any(["amenity", ["pub"]]),
  bank: any(["amenity", ["bank"]]),
  dentist: any(["amenity", ["dentist"]], ["healthcare", ["dentist"]]),
  pharmacy: any(["amenity", ["pharmacy"]], ["healthcare", ["pharmacy"]]),
  bakery: any(["shop", ["bakery"]]),
  hairdresser: any(["shop", ["hairdresser"]]),
  hotel: any(["tourism", ["hotel"]]),
  supermarket: any(["shop", ["supermarket"]]),
  doctor: any(["amenity", ["doctors"]], ["healthcare", ["doctor"]], ["office", ["physician"]]),
  fastFood: any(["amenity", ["fast_food"]]),
  // A cuisine: the cuisine tag, or a restaurant or fast food place named for it ("Pizzeria …").
  pizza: (tags) => any(["cuisine", ["pizza"]])(tags) || (food.includes(tags.amenity) && /pizz/i.test(tags.name ?? "")),
  butcher: any(["shop", ["butcher"]]),
  florist: any(["shop", ["florist"]]),
  optician: any(["shop", ["optician"]], ["craft", ["optician"]]),
  jeweller: any(["shop", ["jewelry"]], ["craft", ["jeweller"]]),
  books: any(["shop", ["books"]]),
  iceCream: any(["amenity", ["ice_cream"]], ["shop", ["ice_cream"]], ["cuisine", ["ice_cream"]]),
  lawyer: any(["office", ["lawyer"]]),
  italianRestaurant: (tags) => tags.amenity === "restaurant" && any(["cuisine", ["italian"]])(tags),
  sushi: (tags) => any(["cuisine", ["sushi"]])(tags) || (food.includes(tags.amenity) && /sushi/i.test(tags.name ?? "")),
  // A brand: its brand tag or its name.
  starbucks: (tags) => /starbucks/i.test(tags.brand ?? "") || /starbucks/i.test(tags.name ?? ""),
  mcdonalds: (tags) => /mcdonald/i.test(tags.brand ?? "") || /mcdonald/i.test(tags.name ?? ""),
};

/** Queries as a user in each language types them, with the concept each means. */
const QUERIES = {
  English: [
    ["restaurant", "restaurant"], ["cafe", "cafe"], ["bar", "bar"], ["pub", "pub"], ["bank", "bank"], ["dentist", "dentist"],
    ["pharmacy", "pharmacy"], ["bakery", "bakery"], ["hairdresser", "hairdresser"], ["hotel", "hotel"], ["supermarket", "supermarket"],
    ["doctor", "doctor"], ["fast food", "fastFood"], ["pizza", "pizza"], ["butcher", "butcher"], ["florist", "florist"],
    ["optician", "optician"], ["jeweller", "jeweller"], ["bookshop", "books"], ["ice cream", "iceCream"], ["lawyer", "lawyer"],
    ["restaurants", "restaurant"], ["dentists", "dentist"], ["bakeries", "bakery"], ["italian restaurant", "italianRestaurant"],
    ["sushi", "sushi"], ["Starbucks", "starbucks"], ["McDonald's", "mcdonalds"],
    // Typos: one letter off, found through the vocabulary (and said so: didYouMean).
    ["resturant", "restaurant"], ["pharmacey", "pharmacy"],
  ],
  German: [
    ["Restaurant", "restaurant"], ["Café", "cafe"], ["Kneipe", "pub"], ["Bank", "bank"], ["Zahnarzt", "dentist"], ["Zahnärzte", "dentist"],
    ["Apotheke", "pharmacy"], ["Bäckerei", "bakery"], ["Baeckerei", "bakery"], ["Friseur", "hairdresser"], ["Hotel", "hotel"],
    ["Supermarkt", "supermarket"], ["Arzt", "doctor"], ["Metzgerei", "butcher"], ["Blumenladen", "florist"], ["Optiker", "optician"],
    ["Juwelier", "jeweller"], ["Buchhandlung", "books"], ["Eisdiele", "iceCream"], ["Rechtsanwalt", "lawyer"], ["Pizzeria", "pizza"],
    ["Zahnartz", "dentist"], ["Friseure", "hairdresser"], ["Apotheken", "pharmacy"],
  ],
  French: [
    ["café", "cafe"], ["banque", "bank"], ["dentiste", "dentist"], ["pharmacie", "pharmacy"], ["boulangerie", "bakery"], ["coiffeur", "hairdresser"],
    ["hôtel", "hotel"], ["supermarché", "supermarket"], ["médecin", "doctor"], ["boucherie", "butcher"], ["fleuriste", "florist"],
    ["opticien", "optician"], ["bijouterie", "jeweller"], ["librairie", "books"], ["avocat", "lawyer"], ["pizzeria", "pizza"],
  ],
  Finnish: [
    ["ravintola", "restaurant"], ["kahvila", "cafe"], ["baari", "bar"], ["pubi", "pub"], ["pankki", "bank"], ["hammaslääkäri", "dentist"],
    ["apteekki", "pharmacy"], ["leipomo", "bakery"], ["kampaamo", "hairdresser"], ["parturi", "hairdresser"], ["hotelli", "hotel"],
    ["supermarketti", "supermarket"], ["lääkäri", "doctor"], ["lihakauppa", "butcher"], ["kukkakauppa", "florist"], ["optikko", "optician"],
    ["kirjakauppa", "books"], ["asianajaja", "lawyer"], ["ravintolat", "restaurant"],
  ],
  Italian: [
    ["ristorante", "restaurant"], ["caffè", "cafe"], ["banca", "bank"], ["dentista", "dentist"], ["farmacia", "pharmacy"],
    ["panetteria", "bakery"], ["parrucchiere", "hairdresser"], ["albergo", "hotel"], ["supermercato", "supermarket"], ["medico", "doctor"],
    ["macelleria", "butcher"], ["fioraio", "florist"], ["ottico", "optician"], ["gioielleria", "jeweller"], ["libreria", "books"],
    ["gelateria", "iceCream"], ["avvocato", "lawyer"], ["pizzeria", "pizza"], ["ristoranti", "restaurant"],
  ],
};

const R = 6371.0088;
function haversineKm(a, b) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The mean of a geometry's distinct vertices (outer rings only for polygons). */
function pointOf(geometry) {
  if (geometry.type === "Point") return { lng: geometry.coordinates[0], lat: geometry.coordinates[1] };
  const rings =
    geometry.type === "LineString" ? [geometry.coordinates] : geometry.type === "Polygon" ? [geometry.coordinates[0]] : geometry.type === "MultiPolygon" ? geometry.coordinates.map((p) => p[0]) : [];
  const seen = new Set();
  let lat = 0;
  let lng = 0;
  for (const ring of rings) {
    for (const [x, y] of ring) {
      const key = `${x},${y}`;
      if (seen.has(key)) continue;
      seen.add(key);
      lat += y;
      lng += x;
    }
  }
  return seen.size ? { lat: lat / seen.size, lng: lng / seen.size } : undefined;
}

/** Every named feature of an extract with its tags, id and point (osmium export). */
function truthFeatures(file) {
  return exportedFeatures(file).filter((f) => f.name);
}

/** Every feature with an address postcode (named or not), for the geocoder's truth. */
function truthFeaturesWithAddresses(file) {
  return exportedFeatures(file).filter((f) => f.tags["addr:postcode"]);
}

const exported = new Map();
function exportedFeatures(file) {
  if (!exported.has(file)) exported.set(file, readFeatures(file));
  return exported.get(file);
}

function readFeatures(file) {
  const text = execFileSync("osmium", ["export", "-f", "geojsonseq", "-a", "type,id", "-o", "-", join(DATA, file)], { maxBuffer: 1 << 30 }).toString("utf8");
  const features = [];
  for (const line of text.split("\n")) {
    const json = line.replace(/^\x1e/, "").trim();
    if (!json) continue;
    const f = JSON.parse(json);
    const tags = f.properties;
    const point = pointOf(f.geometry);
    if (!point) continue;
    features.push({ id: `osm:${tags["@type"]}:${tags["@id"]}`, name: tags.name ?? tags.brand, tags, point });
  }
  return features;
}

/** Truth features grouped into businesses: same name, and same street address or within 30 m. */
function businesses(features) {
  const groups = [];
  for (const f of features) {
    const name = fold(f.name);
    const address = f.tags["addr:street"] && f.tags["addr:housenumber"] ? `${fold(f.tags["addr:street"])} ${f.tags["addr:housenumber"]}` : null;
    const group = groups.find((g) => g.name === name && g.members.some((m) => (address && m.address === address) || haversineKm(m.point, f.point) <= 0.03));
    const member = { ...f, address };
    if (group) group.members.push(member);
    else groups.push({ name, members: [member] });
  }
  return groups;
}

/** Lower case, accents and transliterations aside, for the lenient "name holds the word" test. */
const fold = (s) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/ß/g, "ss").replace(/ae|oe|ue/g, (d) => d[0]);

try {
  execFileSync("osmium", ["--version"], { stdio: "ignore" });
} catch {
  console.error("osmium-tool is needed for the ground truth: apt-get install -y osmium-tool");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "outreach-bench-quality-"));
const instance = openInstance({ dataDir: dir, env: { HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME }, config: { rateLimitPerMinute: 0, enrich: false } });
try {
  const started = performance.now();
  for (const area of AREAS) await instance.services.placesImport.importFile(join(DATA, area.file));
  const importSeconds = (performance.now() - started) / 1000;
  const provider = instance.services.placeProvider;
  const signal = new AbortController().signal;
  for (const area of AREAS) area.truth = truthFeatures(area.file).filter((f) => haversineKm(area.center, f.point) <= area.radiusKm);
  const tagsById = new Map(AREAS.flatMap((a) => truthFeatures(a.file).map((f) => [f.id, f])));

  /** Every lead of a search, all pages. */
  async function leadsOf(area, keywords) {
    const leads = [];
    let cursor = null;
    let didYouMean = null;
    do {
      const page = await provider.search({ center: area.center, radiusKm: area.radiusKm, keywords, cursor, signal });
      leads.push(...page.leads);
      didYouMean ??= page.didYouMean ?? null;
      cursor = page.nextCursor;
    } while (cursor);
    return { leads, didYouMean };
  }

  const only = args.only ? new Set(args.only.split(",")) : undefined;
  const perLanguage = [];
  const rows = [];
  const missLines = [];
  for (const [language, queries] of Object.entries(QUERIES)) {
    // Recall counts businesses (truth groups) found; precision counts leads that are right.
    const sum = { tp: 0, fp: 0, fn: 0, lenientFp: 0, businesses: 0, businessesFound: 0 };
    for (const [keywords, concept] of queries) {
      if (only && !only.has(keywords)) continue;
      const matches = CONCEPTS[concept];
      const q = { tp: 0, fp: 0, fn: 0, lenientFp: 0, businesses: 0, businessesFound: 0, fps: [], fns: [], corrected: null };
      for (const area of AREAS) {
        const groups = businesses(area.truth.filter((f) => matches(f.tags)));
        const truth = new Map(groups.flatMap((g) => g.members.map((m) => [m.id, m])));
        const { leads, didYouMean } = await leadsOf(area, keywords);
        q.corrected ??= didYouMean;
        const found = new Set();
        for (const lead of leads) {
          found.add(lead.placeId);
          if (truth.has(lead.placeId)) q.tp++;
          else {
            q.fp++;
            const words = fold(lead.name).split(/[^\p{L}\p{N}]+/u);
            const word = fold(keywords);
            if (!words.some((w) => w.startsWith(word) || (word.length > 5 && w.startsWith(word.slice(0, -1))))) q.lenientFp++;
            const tags = tagsById.get(lead.placeId)?.tags ?? {};
            q.fps.push(`${area.label}: ${lead.name} [${summary(tags)}]`);
          }
        }
        for (const group of groups) {
          q.businesses++;
          if (group.members.some((m) => found.has(m.id))) {
            q.businessesFound++;
            continue;
          }
          const f = group.members[0];
          q.fn++;
          q.fns.push(`${area.label}: ${f.name} [${summary(f.tags)}] ${f.id}${group.members.length > 1 ? ` (+${group.members.length - 1} more)` : ""}`);
        }
      }
      for (const k of Object.keys(sum)) sum[k] += q[k];
      const recall = q.businesses ? q.businessesFound / q.businesses : 1;
      const precision = q.tp + q.fp ? q.tp / (q.tp + q.fp) : 1;
      const lenient = q.tp + q.lenientFp ? q.tp / (q.tp + q.lenientFp) : 1;
      rows.push({ language, keywords, concept, truth: q.businesses, found: q.tp + q.fp, recall, precision, lenient, corrected: q.corrected });
      if (q.fns.length || q.fps.length) {
        const n = Number(args.misses);
        missLines.push(`- ${language} "${keywords}" (${concept}): ${q.fn} missed, ${q.fp} wrong`);
        for (const m of q.fns.slice(0, n)) missLines.push(`    missed ${m}`);
        for (const m of q.fps.slice(0, n)) missLines.push(`    wrong  ${m}`);
      }
    }
    perLanguage.push({
      language,
      recall: sum.businessesFound / sum.businesses,
      precision: sum.tp / (sum.tp + sum.lenientFp),
      strict: sum.tp / (sum.tp + sum.fp),
      truth: sum.businesses,
      found: sum.tp + sum.fp,
    });
  }

  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  console.log(`\nLead search quality on ${AREAS.map((a) => `${a.label} (${a.radiusKm} km)`).join(", ")}`);
  console.log(`(extracts imported in ${importSeconds.toFixed(1)} s; truth from osmium export and the concept table in this file; load ${loadavg().map((l) => l.toFixed(1)).join(" ")})\n`);
  console.log("| language | businesses (truth) | leads found | recall | precision (name-lenient) | precision (tags only) |");
  console.log("|---|---|---|---|---|---|");
  for (const l of perLanguage) console.log(`| ${l.language} | ${l.truth} | ${l.found} | ${pct(l.recall)} | ${pct(l.precision)} | ${pct(l.strict)} |`);
  const local = perLanguage.filter((l) => l.language !== "English");
  const total = (key) => local.reduce((s, l) => s + l[key] * l.truth, 0) / local.reduce((s, l) => s + l.truth, 0);
  console.log(`\nlocal languages together: recall ${pct(total("recall"))}`);
  console.log("\n| language | query | concept | businesses | leads | recall | precision | tags only |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const flag = r.recall < 0.9 || r.lenient < 0.9 ? " ⚠" : "";
    console.log(`| ${r.language} | ${r.keywords}${r.corrected ? ` (→ ${r.corrected})` : ""} | ${r.concept} | ${r.truth} | ${r.found} | ${pct(r.recall)} | ${pct(r.lenient)} | ${pct(r.precision)}${flag} |`);
  }
  console.log(`\nMisses (first ${args.misses} of each kind per query):`);
  for (const line of missLines) console.log(line);

  // The location forms of the issue, against published coordinates (Wikipedia, GeoNames) or,
  // for a postcode, the mean point of the extract's features that carry it (osmium export).
  // The Overture sample is imported too: it holds places in Portland (Oregon and Maine) and
  // Westminster (Colorado), the names the old geocoder confused.
  await instance.services.placesImport.importFile(join(DATA, "overture-places-us-sample-3425.parquet"));
  const postcode = (file, code) => {
    const points = truthFeaturesWithAddresses(file).filter((f) => f.tags["addr:postcode"] === code).map((f) => f.point);
    return { lat: points.reduce((s, p) => s + p.lat, 0) / points.length, lng: points.reduce((s, p) => s + p.lng, 0) / points.length };
  };
  const marienplatz = { lat: 48.13722, lng: 11.57528 };
  const kamppi = { lat: 60.16778, lng: 24.93194 };
  const forms = [
    ["Marienplatz, München", marienplatz, 1.5], ["Marienplatz", marienplatz, 1.5], ["Kamppi", kamppi, 1.5], ["Kamppi, Helsinki", kamppi, 1.5],
    ["EC4M 9BR", postcode("london-city-2020-07-20.osm.pbf", "EC4M 9BR"), 1.5], ["80331 München", postcode("munich-altstadt-2020-07-20.osm.pbf", "80331"), 1.5],
    ["Portland, OR", { lat: 45.5152, lng: -122.6784 }, 3], ["Westminster", { lat: 51.4975, lng: -0.1357 }, 3],
    ["Muenchen", { lat: 48.1372, lng: 11.5755 }, 3], ["München", { lat: 48.1372, lng: 11.5755 }, 3],
  ];
  console.log("\n| location | resolved to | kind | km from the place | limit |");
  console.log("|---|---|---|---|---|");
  for (const [location, point, limit] of forms) {
    const r = instance.services.geocoder.resolveText(location);
    const km = r ? haversineKm(r.center, point) : NaN;
    console.log(`| ${location} | ${r?.name ?? "—"} | ${r?.kind ?? "—"} | ${km.toFixed(2)}${km <= limit ? "" : " ⚠"} | ${limit} |`);
  }
} finally {
  instance.close();
  rmSync(dir, { recursive: true, force: true });
}

function summary(tags) {
  return ["amenity", "shop", "craft", "office", "healthcare", "tourism", "cuisine"]
    .filter((k) => tags[k])
    .map((k) => `${k}=${tags[k]}`)
    .join(" ");
}

