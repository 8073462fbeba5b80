// A synthetic country-sized OSM extract (.osm.pbf) shaped like a Geofabrik country file:
// ≥ 40 million nodes, most of them untagged members of ways (buildings, streets), ~2
// million businesses as tagged nodes, building ways that need their nodes' positions and
// a few multipolygon relations, plus address nodes, street furniture and named places.
// Node ids follow "edit order", not space: neighbouring ids lie anywhere in the country,
// as in real data, so looking up a way's node positions is random access. Tags and
// names follow OSM's usual mixes (shop/amenity/craft/office/tourism/healthcare values,
// contact and address tags, brands with brand:wikidata, unnamed businesses).
//
// Deterministic: the same arguments write the same file. `--revision N` (N ≥ 1) writes
// a "newer extract" of the same country: about 1 % of the businesses changed (phone,
// name, opening hours), 0.3 % gone and 0.3 % new, everything else identical.
//
//   node bench/synthetic-country-pbf.js --out /tmp/country.osm.pbf [--nodes 40000000] [--businesses 2100000] [--revision 0]
//
// Generated files never go into the repository: write them to /tmp (≈ 0.6 GB at 40 M nodes).
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { PbfWriter } from "./_pbf-writer.js";

/** mulberry32: a small, fast, seedable PRNG (one per feature, so both passes agree). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (r, list) => list[Math.floor(r() * list.length)];

/** [tags, weight, name words, extra tags]: a business mix roughly as in German OSM data. */
const BUSINESSES = [
  [[["amenity", "restaurant"]], 10, ["Gasthaus", "Restaurant", "Ristorante", "Trattoria", "Bistro", "Wirtshaus"], "cuisine"],
  [[["amenity", "cafe"]], 5, ["Café", "Kaffeehaus", "Coffee", "Konditorei"]],
  [[["amenity", "fast_food"]], 5, ["Döner", "Imbiss", "Burger", "Pizza", "Asia Wok"], "cuisine"],
  [[["amenity", "bar"]], 2, ["Bar", "Kneipe", "Lounge"]],
  [[["amenity", "pub"]], 2, ["Pub", "Kneipe", "Bierstube"]],
  [[["amenity", "pharmacy"], ["healthcare", "pharmacy"]], 2, ["Apotheke", "Stadt-Apotheke", "Löwen-Apotheke"]],
  [[["amenity", "dentist"], ["healthcare", "dentist"]], 2, ["Zahnarztpraxis", "Zahnarzt", "Dental"]],
  [[["amenity", "doctors"], ["healthcare", "doctor"]], 3, ["Praxis", "Hausarzt", "Gemeinschaftspraxis"]],
  [[["amenity", "bank"]], 1.5, ["Sparkasse", "Volksbank", "Raiffeisenbank"]],
  [[["amenity", "veterinary"]], 0.7, ["Tierarztpraxis", "Tierklinik"]],
  [[["amenity", "kindergarten"]], 2, ["Kita", "Kindergarten"]],
  [[["amenity", "fuel"]], 1, ["Tankstelle"]],
  [[["shop", "bakery"]], 4, ["Bäckerei", "Backhaus", "Bäckerei-Konditorei"]],
  [[["shop", "supermarket"]], 3, ["Markt", "Supermarkt", "Frischemarkt"]],
  [[["shop", "hairdresser"]], 5, ["Friseur", "Haarstudio", "Salon", "Coiffeur"]],
  [[["shop", "clothes"]], 5, ["Mode", "Boutique", "Fashion"]],
  [[["shop", "car_repair"]], 3, ["Autowerkstatt", "Kfz-Meisterbetrieb", "Autoservice"]],
  [[["shop", "car"]], 1.5, ["Autohaus"]],
  [[["shop", "kiosk"]], 2, ["Kiosk", "Trinkhalle"]],
  [[["shop", "florist"]], 1.2, ["Blumen", "Blumenladen", "Floristik"]],
  [[["shop", "butcher"]], 1.2, ["Metzgerei", "Fleischerei"]],
  [[["shop", "optician"]], 1, ["Optik", "Augenoptik"]],
  [[["shop", "beauty"]], 2, ["Kosmetikstudio", "Nagelstudio", "Beauty"]],
  [[["shop", "convenience"]], 2, ["Späti", "Getränkemarkt", "Laden"]],
  [[["shop", "furniture"]], 1, ["Möbelhaus", "Möbel"]],
  [[["shop", "bicycle"]], 0.8, ["Fahrradladen", "Zweirad"]],
  [[["craft", "electrician"]], 1.5, ["Elektro", "Elektrotechnik"]],
  [[["craft", "plumber"]], 1.2, ["Sanitär", "Heizung und Sanitär"]],
  [[["craft", "carpenter"]], 1, ["Schreinerei", "Tischlerei", "Zimmerei"]],
  [[["craft", "painter"]], 0.6, ["Malerbetrieb", "Malermeister"]],
  [[["office", "lawyer"]], 1.5, ["Rechtsanwalt", "Kanzlei", "Rechtsanwälte"]],
  [[["office", "accountant"]], 1, ["Steuerberater", "Steuerkanzlei"]],
  [[["office", "company"]], 6, ["GmbH", "AG", "Consulting", "Services", "Solutions"]],
  [[["office", "insurance"]], 1, ["Versicherungsbüro", "Versicherungen"]],
  [[["office", "estate_agent"]], 0.8, ["Immobilien"]],
  [[["tourism", "hotel"]], 2, ["Hotel", "Gasthof", "Pension", "Landhotel"]],
  [[["tourism", "guest_house"]], 1, ["Ferienwohnung", "Gästehaus"]],
  [[["leisure", "fitness_centre"]], 1, ["Fitness", "Fitnessstudio", "Gym"]],
  [[["healthcare", "physiotherapist"]], 1.2, ["Physiotherapie", "Krankengymnastik"]],
];
const BRANDS = [
  ["shop", "supermarket", "Lidl", "Q151954"], ["shop", "supermarket", "Aldi Süd", "Q41171672"], ["shop", "supermarket", "Rewe", "Q16968817"],
  ["shop", "supermarket", "Edeka", "Q701755"], ["shop", "chemist", "dm", "Q266572"], ["shop", "chemist", "Rossmann", "Q316004"],
  ["amenity", "fast_food", "McDonald's", "Q38076"], ["amenity", "fast_food", "Burger King", "Q177054"], ["shop", "bakery", "Back-Factory", "Q21200483"],
  ["amenity", "fuel", "Aral", "Q565734"], ["shop", "clothes", "C&A", "Q701338"], ["shop", "shoes", "Deichmann", "Q664543"],
];
const CUISINES = ["german", "italian", "pizza", "kebab", "chinese", "greek", "asian", "burger", "indian", "turkish", "vietnamese", "regional"];
const SURNAMES = ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann", "Koch", "Richter",
  "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann", "Braun", "Krüger", "Hofmann", "Hartmann", "Lange", "Schmitt", "Werner",
  "Krause", "Meier", "Lehmann", "Huber", "Kaya", "Yılmaz", "Nowak", "Rossi", "Nguyen", "Papadopoulos", "Kowalski"];
const STREETS = ["Hauptstraße", "Bahnhofstraße", "Schulstraße", "Gartenstraße", "Dorfstraße", "Bergstraße", "Lindenstraße", "Kirchstraße",
  "Waldstraße", "Ringstraße", "Mühlenweg", "Am Markt", "Marktplatz", "Goethestraße", "Schillerstraße", "Friedrichstraße", "Poststraße"];
const FURNITURE = [["natural", "tree"], ["highway", "crossing"], ["highway", "bus_stop"], ["highway", "street_lamp"], ["barrier", "gate"],
  ["power", "pole"], ["highway", "traffic_signals"], ["amenity", "bench"], ["amenity", "waste_basket"], ["amenity", "parking"]];
const HIGHWAYS = ["residential", "residential", "residential", "service", "tertiary", "secondary", "unclassified", "footway", "track"];

const businessWeights = cumulative(BUSINESSES.map((b) => b[1]));

function cumulative(weights) {
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => (acc += w / total));
}
function pickCumulative(cum, r) {
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (r <= cum[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** 2,000 towns over a Germany-sized box, Zipf-like sizes (a few cities, many villages). */
function makeTowns() {
  const r = prng(7);
  const towns = [];
  for (let i = 0; i < 2000; i++) {
    towns.push({ lat: 47.4 + r() * 7.4, lng: 6 + r() * 8.9, sigmaKm: 0.8 + 6 / Math.sqrt(i + 1), postcode: String(10000 + Math.floor(r() * 89999)), name: `${pick(r, ["Neu", "Alt", "Ober", "Unter", "Bad ", "Groß", ""])}${pick(r, ["stadt", "dorf", "heim", "hausen", "berg", "feld", "burg", "bach"]).replace(/^./, (c) => c.toUpperCase())} ${i}` });
  }
  return { towns, cum: cumulative(towns.map((_, i) => 1 / (i + 1) ** 0.95)) };
}
const { towns: TOWNS, cum: TOWN_CUM } = makeTowns();

function around(r, town) {
  const g = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  return [town.lat + (g() * town.sigmaKm) / 111.2, town.lng + (g() * town.sigmaKm) / (111.2 * Math.cos((town.lat * Math.PI) / 180))];
}

function addressTags(r, town) {
  return [["addr:street", pick(r, STREETS)], ["addr:housenumber", String(1 + Math.floor(r() * 120))], ["addr:postcode", town.postcode], ["addr:city", town.name]];
}

/** A business's tags; `revision` changes a few of them (see the header). */
function businessTags(r, town, i, changed) {
  const brand = r() < 0.06 ? pick(r, BRANDS) : null;
  const b = BUSINESSES[pickCumulative(businessWeights, r())];
  const tags = brand ? [[brand[0], brand[1]], ["brand", brand[2]], ["brand:wikidata", brand[3]], ["name", brand[2]]] : [...b[0]];
  if (!brand && r() > 0.05) tags.push(["name", `${r() < 0.5 ? pick(r, SURNAMES) + " " : ""}${pick(r, b[2])}${r() < 0.3 ? " " + pick(r, SURNAMES) : ""}`]);
  if (b[3] === "cuisine" && !brand) tags.push(["cuisine", pick(r, CUISINES)]);
  if (r() < 0.55) tags.push(...addressTags(r, town));
  if (r() < 0.3) tags.push(["website", `https://www.${tags.find(([k]) => k === "name")?.[1].toLowerCase().replace(/[^a-z]+/g, "-") ?? "b"}-${i}.de/`]);
  if (r() < 0.35) tags.push([r() < 0.5 ? "phone" : "contact:phone", `+49 ${30 + Math.floor(r() * 900)} ${100000 + Math.floor(r() * 899999)}`]);
  if (r() < 0.05) tags.push(["email", `info@firma-${i}.de`]);
  if (r() < 0.4) tags.push(["opening_hours", pick(r, ["Mo-Fr 08:00-18:00", "Mo-Sa 09:00-20:00; Su off", "Mo-Fr 09:00-12:00,14:00-18:00", "24/7"])]);
  if (r() < 0.1) tags.push(["wheelchair", pick(r, ["yes", "no", "limited"])]);
  if (r() < 0.05) tags.push(["contact:facebook", `https://www.facebook.com/firma${i}`]);
  if (changed) {
    const phone = tags.find(([k]) => k === "phone" || k === "contact:phone");
    if (phone) phone[1] = phone[1].replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    else tags.push(["opening_hours", "Mo-Fr 10:00-16:00"]);
  }
  return tags;
}

/**
 * Feature `i`: its nodes (positions and tags), and the way or relation it makes, if any.
 * Everything comes from the feature's own PRNG, so the nodes pass and the ways pass agree.
 */
function feature(i, mix, revision) {
  const r = prng(i * 2654435761 + 12345);
  const town = TOWNS[pickCumulative(TOWN_CUM, r())];
  const kind = pickCumulative(mix.cum, r());
  const type = mix.kinds[kind];
  // Revision changes: from their own PRNG, so that the base file's draws stay the same.
  const rev = revision > 0 ? prng(i * 40503 + revision * 7919)() : 1;
  const gone = rev < 0.003;
  const changed = rev >= 0.003 && rev < 0.013;
  const added = revision > 0 && rev >= 0.013 && rev < 0.016;
  const [lat, lng] = around(r, town);
  if (type === "businessNode" || (type === "addressNode" && added)) {
    const tags = businessTags(r, town, i, changed);
    return { nodes: [[lat, lng, gone ? [] : tags]] };
  }
  if (type === "addressNode") return { nodes: [[lat, lng, addressTags(r, town)]] };
  if (type === "furniture") return { nodes: [[lat, lng, [pick(r, FURNITURE)]]] };
  if (type === "placeNode") return { nodes: [[town.lat, town.lng, [["place", r() < 0.2 ? "town" : "village"], ["name", town.name]]]] };
  if (type === "highway") {
    const n = 4 + Math.floor(r() * 13);
    const nodes = [];
    let [la, ln] = [lat, lng];
    const [dla, dln] = [(r() - 0.5) * 0.002, (r() - 0.5) * 0.002];
    for (let k = 0; k < n; k++) nodes.push([(la += dla), (ln += dln), []]);
    return { nodes, way: { tags: [["highway", pick(r, HIGHWAYS)], ...(r() < 0.7 ? [["name", pick(r, STREETS)]] : [])] } };
  }
  // A building: four corners (the way closes on its first node).
  const d = 0.0001 + r() * 0.0002;
  const nodes = [[lat, lng, []], [lat + d, lng, []], [lat + d, lng + d * 1.5, []], [lat, lng + d * 1.5, []]];
  if (type === "building") return { nodes, way: { tags: [["building", pick(r, ["yes", "house", "residential", "garage", "apartments"])], ...(r() < 0.4 ? addressTags(r, town) : [])], closed: true } };
  const tags = businessTags(r, town, i, changed);
  const live = gone ? [["building", "yes"]] : [["building", "retail"], ...tags];
  // About 1 % of business areas are multipolygon relations over an untagged outline.
  if (type === "businessArea" && r() < 0.01) return { nodes, way: { tags: [], closed: true }, relation: { tags: gone ? [["type", "multipolygon"]] : [["type", "multipolygon"], ...tags] } };
  return { nodes, way: { tags: live, closed: true } };
}

/** The feature mix that makes about `nodes` nodes of which about `businesses` are businesses. */
function featureMix(nodes, businesses) {
  const counts = {
    businessNode: 0.72 * businesses,
    businessArea: 0.28 * businesses,
    addressNode: 1.0 * businesses,
    furniture: 0.7 * businesses,
    placeNode: businesses / 400,
  };
  const left = nodes - (counts.businessNode + counts.businessArea * 4 + counts.addressNode + counts.furniture + counts.placeNode);
  if (left <= 0) throw new Error("--nodes too small for --businesses");
  counts.highway = (0.4 * left) / 10;
  counts.building = (0.6 * left) / 4;
  const kinds = Object.keys(counts);
  return { kinds, cum: cumulative(kinds.map((k) => counts[k])) };
}

/** Writes the extract; returns its size and contents. */
export function writeSyntheticCountry(out, { nodes = 40_000_000, businesses = 2_100_000, revision = 0, onProgress } = {}) {
  const mix = featureMix(nodes, businesses);
  const writer = new PbfWriter(out);
  let nodeId = 0;
  let features = 0;
  let businessNodes = 0;
  while (nodeId < nodes) {
    for (const [lat, lng, tags] of feature(features, mix, revision).nodes) writer.addNode(++nodeId, lat, lng, tags);
    features++;
    if (features % 1_000_000 === 0) onProgress?.(`nodes ${nodeId.toLocaleString("en")}`);
  }
  nodeId = 0;
  let wayId = 0;
  const relations = [];
  for (let i = 0; i < features; i++) {
    const f = feature(i, mix, revision);
    const first = nodeId + 1;
    nodeId += f.nodes.length;
    if (f.nodes.length === 1 && f.nodes[0][2].some(([k]) => k !== "name" && ["amenity", "shop", "craft", "office", "tourism", "healthcare", "leisure"].includes(k))) businessNodes++;
    if (!f.way) continue;
    const refs = [];
    for (let id = first; id <= nodeId; id++) refs.push(id);
    if (f.way.closed) refs.push(first);
    writer.addWay(++wayId, refs, f.way.tags);
    if (f.relation) relations.push({ way: wayId, tags: f.relation.tags });
    if (i % 1_000_000 === 0) onProgress?.(`ways ${wayId.toLocaleString("en")}`);
  }
  relations.forEach((rel, k) => writer.addRelation(k + 1, [["way", rel.way, "outer"]], rel.tags));
  const bytes = writer.close();
  return { bytes, nodes: nodeId, ways: wayId, relations: relations.length, features, businessNodes };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { out: { type: "string" }, nodes: { type: "string", default: "40000000" }, businesses: { type: "string", default: "2100000" }, revision: { type: "string", default: "0" } },
  });
  if (!values.out) throw new Error("--out FILE.osm.pbf is required (outside the repository, e.g. /tmp/country.osm.pbf)");
  const started = performance.now();
  const result = writeSyntheticCountry(values.out, {
    nodes: Number(values.nodes),
    businesses: Number(values.businesses),
    revision: Number(values.revision),
    onProgress: (s) => process.stderr.write(`\r${s}…   `),
  });
  process.stderr.write("\n");
  console.log(JSON.stringify({ out: values.out, ...result, mib: +(result.bytes / 2 ** 20).toFixed(1), seconds: +((performance.now() - started) / 1000).toFixed(1) }));
}
