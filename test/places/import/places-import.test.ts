import { foldForSearch } from "../../../src/core/text.js";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseBoundingBox, type ImportProgress } from "../../../src/places/import/places-import.js";
import { progressLine } from "../../../src/cli/commands/places/import-report.js";
import { tempDir } from "../../helpers/data-dir.js";
import { createTestInstance } from "../../helpers/instance.js";
import { PARALLEL_MIN_CELLS } from "../../../src/places/store/postings-rebuild.js";
import { packedIndex, termIndex } from "../../helpers/place-terms.js";
import { dataTest, liechtensteinPbf, monacoPbf, munichPbf, near, overtureSample } from "../../helpers/places-data.js";

function placeIds(db: ReturnType<typeof createTestInstance>["services"]["deps"]["db"]) {
  return db.prepare("SELECT id, place_id FROM places ORDER BY place_id").all() as { id: number; place_id: string }[];
}

describe("importing into the places index", () => {
  dataTest("re-importing the same file updates in place: same count, same IDs and rowids", async () => {
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    const db = instance.services.deps.db;
    const first = await service.importFile(liechtensteinPbf());
    expect(near(first.added, 591)).toBe(true);
    expect(first).toMatchObject({ updated: 0, removed: 0, total: first.added });
    expect(near(first.withWebsite, 193, 0.1)).toBe(true);
    const before = placeIds(db);

    instance.clock.advance(60_000);
    const second = await service.importFile(liechtensteinPbf());
    expect(second).toMatchObject({ added: 0, updated: 0, unchanged: first.added, removed: 0, total: first.added });
    expect(placeIds(db)).toEqual(before);
    const counts = service.stats().index;
    expect(counts).toMatchObject({ places: first.added });
    const [source] = service.stats().sources;
    expect(source).toMatchObject({ kind: "osm", data_date: "2026-03-29", licence: "ODbL-1.0", status: "complete", place_count: first.added });
    // The term index holds the labels: "restaurant" and words starting with "dent" find places.
    const rows = termIndex(db).actual;
    const places = (from: string, to: string) => new Set(rows.filter((r) => r.term >= from && r.term < to).map((r) => r.place)).size;
    expect(places("restaurant", "restaurant\u0000")).toBeGreaterThan(30);
    expect(places("dent", "dent\u{10FFFF}")).toBeGreaterThan(0);
  });

  dataTest("labels support the known search shapes: about 50 restaurants within 5 km of Vaduz (16 with a website), 121 around Monaco-Ville (54)", async () => {
    const instance = createTestInstance();
    await instance.services.placesImport.importFile(liechtensteinPbf());
    await instance.services.placesImport.importFile(monacoPbf());
    const rows = instance.services.deps.db.prepare("SELECT lat, lng, website, categories FROM places").all() as {
      lat: number;
      lng: number;
      website: string | null;
      categories: string;
    }[];
    const km = (lat1: number, lng1: number, lat2: number, lng2: number) => {
      const r = Math.PI / 180;
      const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lng2 - lng1) * r) / 2) ** 2;
      return 2 * 6371 * Math.asin(Math.sqrt(a));
    };
    const restaurantsNear = (lat: number, lng: number) =>
      rows.filter((p) => (JSON.parse(p.categories) as string[]).includes("restaurant") && km(lat, lng, p.lat, p.lng) <= 5);
    const vaduz = restaurantsNear(47.141, 9.5209);
    expect(near(vaduz.length, 50, 0.1)).toBe(true);
    expect(near(vaduz.filter((p) => p.website).length, 16, 0.2)).toBe(true);
    const monaco = restaurantsNear(43.7384, 7.4246);
    expect(near(monaco.length, 121, 0.1)).toBe(true);
    expect(near(monaco.filter((p) => p.website).length, 54, 0.1)).toBe(true);
  });

  dataTest("--replace reads the file again and swaps its places in: the same file changes nothing", async () => {
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    const first = await service.importFile(liechtensteinPbf());
    const replaced = await service.importFile(liechtensteinPbf(), { replace: true });
    expect(replaced).toMatchObject({ removed: 0, added: 0, updated: 0, unchanged: first.total, total: first.total, unchangedFile: false });
    expect(service.stats().index).toMatchObject({ places: first.total });
  });

  dataTest("the search's term index follows a real import, its re-import and --replace row for row", async () => {
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    const db = instance.services.deps.db;
    await service.importFile(liechtensteinPbf());
    const imported = termIndex(db);
    expect(imported.actual.length).toBeGreaterThan(1000);
    expect(imported.actual).toEqual(imported.expected);
    instance.clock.advance(60_000);
    await service.importFile(liechtensteinPbf());
    expect(termIndex(db).actual).toEqual(imported.actual);
    await service.importFile(liechtensteinPbf(), { replace: true });
    // The index the search reads was rebuilt when the import ended: nothing stale, and
    // nothing left behind by the places --replace deleted.
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(rows);
    const replaced = termIndex(db);
    expect(replaced.actual).toEqual(replaced.expected);
    expect(replaced.actual).toHaveLength(imported.actual.length);
  });

  dataTest("localities are built from the places: Vaduz, Schaan, 9490 and München resolve", async () => {
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    await service.importFile(liechtensteinPbf());
    const munichImport = await service.importFile(munichPbf());
    // ../shared/data/README.md: 2,126 businesses, 996 with a website, 906 with a phone.
    expect(near(munichImport.total, 2126, 0.05)).toBe(true);
    expect(near(munichImport.withWebsite, 996, 0.05)).toBe(true);
    expect(near(munichImport.withPhone, 906, 0.05)).toBe(true);
    const db = instance.services.deps.db;
    const locality = (kind: string, name: string) =>
      db.prepare("SELECT * FROM localities WHERE kind = ? AND key = ? ORDER BY place_count DESC").get(kind, foldForSearch(name)) as Record<string, unknown>;
    expect(locality("city", "Vaduz")).toMatchObject({ name: "Vaduz", country: "LI" });
    expect(locality("city", "Vaduz").lat).toBeCloseTo(47.14, 1);
    expect(locality("city", "Schaan")).toMatchObject({ name: "Schaan", country: "LI" });
    expect(locality("postcode", "9490")).toMatchObject({ name: "9490", city: "Vaduz", country: "LI" });
    const munich = locality("city", "München");
    expect(munich).toMatchObject({ name: "München" });
    expect(munich.lat).toBeCloseTo(48.137, 1);
    expect(munich.lng).toBeCloseTo(11.575, 1);
    expect(Number(munich.place_count)).toBeGreaterThan(500);
    // What the data holds besides addresses: OSM's named places, squares among them.
    expect(locality("square", "Marienplatz")).toMatchObject({ name: "Marienplatz", country: "DE", place_count: 0 });
    const geocoder = instance.services.geocoder;
    expect(geocoder.resolveText("Schaan")).toMatchObject({ kind: "city", name: "Schaan" });
    expect(geocoder.resolveText("Muenchen")).toMatchObject({ kind: "city", name: "München" });
  });

  dataTest("an import that touches thousands of cells packs them on threads, row for row what its places give", async () => {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    const reports: ImportProgress[] = [];
    const summary = await instance.services.placesImport.importFile(overtureSample(), { onProgress: (p) => reports.push(p) });
    expect(summary.total).toBe(3425);
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    // Enough cells for the threaded rebuild (`refreshInParallel` below this count is `refresh`).
    const cells = new Set(packed.map((r) => r.cell)).size;
    expect(cells).toBeGreaterThanOrEqual(PARALLEL_MIN_CELLS);
    expect(packed).toEqual(rows);
    // Progress counts the cells as their chunks come back, up to all of them.
    const packing = reports.flatMap((r) => (r.finishing?.step === "search index" ? [r.finishing] : []));
    expect(packing[0]).toEqual({ step: "search index", cells, packed: 0 });
    expect(packing.length).toBeGreaterThan(2);
    expect(packing.map((p) => p.packed)).toEqual([...packing.map((p) => p.packed)].sort((a, b) => a - b));
    expect(packing.at(-1)).toEqual({ step: "search index", cells, packed: cells });
  });

  dataTest("--bbox on the Overture sample keeps one area", async () => {
    const instance = createTestInstance();
    const summary = await instance.services.placesImport.importFile(overtureSample(), { bbox: parseBoundingBox("-91.6,36.9,-87.0,42.6") });
    expect(summary.total).toBeGreaterThan(20);
    expect(summary.total).toBeLessThan(400);
    expect(summary.skipped["outside bbox"]).toBe(3425 - summary.total);
    const outside = instance.services.deps.db
      .prepare("SELECT count(*) AS n FROM places WHERE lat < 36.9 OR lat > 42.6 OR lng < -91.6 OR lng > -87.0")
      .get() as { n: number };
    expect(outside.n).toBe(0);
  });

  dataTest("progress says how far each pass over a PBF has read, with the places' rate and the pass's time left", async () => {
    const instance = createTestInstance();
    const reports: ImportProgress[] = [];
    const summary = await instance.services.placesImport.importFile(liechtensteinPbf(), { batchSize: 200, onProgress: (p) => reports.push(p) });
    const size = statSync(liechtensteinPbf()).size;
    const withBytes = reports.filter((r) => r.read);
    expect(withBytes.length).toBeGreaterThan(0);
    expect(withBytes.every((r) => r.read!.totalBytes === size && r.read!.bytes > 0 && r.read!.bytes <= size)).toBe(true);
    // Within a pass the bytes only grow; the businesses' pass comes first.
    expect(withBytes[0]!.read!.pass).toBe(1);
    for (let i = 1; i < withBytes.length; i++) {
      const [a, b] = [withBytes[i - 1]!.read!, withBytes[i]!.read!];
      if (a.pass === b.pass) expect(b.bytes).toBeGreaterThanOrEqual(a.bytes);
      else expect(b.pass).toBeGreaterThan(a.pass);
    }
    expect(reports.at(-1)!.places).toBeLessThanOrEqual(summary.total);
    expect(reports.every((r) => r.placesPerSecond >= 0 && (r.passEtaSeconds === null || r.passEtaSeconds >= 0))).toBe(true);
    const line = progressLine({ ...withBytes.at(-1)!, finishing: undefined, read: { pass: 1, bytes: 120e6, totalBytes: 4e9 }, places: 12_000, placesPerSecond: 5300.4, skipped: 2, passEtaSeconds: 725 });
    expect(line).toBe("liechtenstein-2026-03-29.osm.pbf: 120/4,000 MB (3 %, businesses), 12,000 places at 5,300/s, 2 skipped, ~12 min left in this pass");
    // Once every place is written: packing the cells it touched, then the localities, each said before it starts.
    const finishing = reports.filter((r) => r.finishing);
    expect(finishing.map((r) => r.finishing!.step)).toEqual(["search index", "localities"]);
    expect(reports.slice(-2)).toEqual(finishing);
    const cells = (finishing[0]!.finishing as { cells: number }).cells;
    expect(cells).toBeGreaterThan(10);
    expect(cells).toBeLessThanOrEqual(summary.total);
    expect(finishing.every((r) => r.places === summary.total)).toBe(true);
    expect(progressLine({ ...finishing[0]!, places: 1_981_521, finishing: { step: "search index", cells: 212_345, packed: 0 } })).toBe(
      "liechtenstein-2026-03-29.osm.pbf: 1,981,521 places written; packing the search index (212,345 grid cells)…",
    );
    expect(progressLine({ ...finishing[0]!, places: 1_981_521, finishing: { step: "search index", cells: 212_345, packed: 120_000 } })).toBe(
      "liechtenstein-2026-03-29.osm.pbf: 1,981,521 places written; packing the search index (120,000 of 212,345 grid cells)…",
    );
    expect(progressLine(finishing[1]!)).toBe(`liechtenstein-2026-03-29.osm.pbf: ${summary.total.toLocaleString("en")} places written; rebuilding the localities…`);
  });

  test("re-importing an unchanged file reads nothing (its fingerprint matches); a changed file, another --bbox or --replace read it again", async () => {
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    const db = instance.services.deps.db;
    const dir = tempDir();
    const file = join(dir, "shops.ndjson");
    const rows = (names: string[]) => names.map((name, i) => JSON.stringify({ placeId: `s${i}`, name, lat: 47.1 + i / 100, lng: 9.5 })).join("\n") + "\n";
    writeFileSync(file, rows(["Bäckerei Beck", "Café Wolf"]));
    const first = await service.importFile(file);
    expect(first).toMatchObject({ added: 2, unchangedFile: false });
    // Proof that the second import did not read the file: a place changed behind its back stays changed.
    db.prepare("UPDATE places SET name = 'edited in the database' WHERE place_id LIKE '%:s0'").run();
    expect(await service.importFile(file)).toMatchObject({ added: 0, updated: 0, unchanged: 2, removed: 0, total: 2, unchangedFile: true });
    expect(db.prepare("SELECT name FROM places WHERE place_id LIKE '%:s0'").pluck().get()).toBe("edited in the database");
    // Another bbox is another import.
    expect(await service.importFile(file, { bbox: parseBoundingBox("9,47,10,48") })).toMatchObject({ updated: 1, unchangedFile: false });
    expect(await service.importFile(file, { bbox: parseBoundingBox("9,47,10,48") })).toMatchObject({ unchangedFile: true });
    // --replace always reads the file.
    expect(await service.importFile(file, { replace: true, bbox: parseBoundingBox("9,47,10,48") })).toMatchObject({ unchanged: 2, unchangedFile: false });
    // A changed file is read and diffed.
    writeFileSync(file, rows(["Bäckerei Beck", "Café Wolf am Markt"]));
    expect(await service.importFile(file, { bbox: parseBoundingBox("9,47,10,48") })).toMatchObject({ updated: 1, unchanged: 1, unchangedFile: false });
  });

  test("a bad --bbox names what is wrong", () => {
    expect(() => parseBoundingBox("1,2,3")).toThrow(/four numbers/);
    expect(() => parseBoundingBox("10,47,9,48")).toThrow(/minimums must be smaller/);
    expect(() => parseBoundingBox("10,95,11,96")).toThrow(/latitudes/);
  });
});

describe("your own CSV and NDJSON lists", () => {
  const CSV = [
    "placeId,name,address,lat,lng,website,phone,email,categories,rating,facebook,city,country",
    "d1,Dental Vaduz,\"Städtle 1, 9490 Vaduz\",47.14,9.52,dental-vaduz.li,+423 232 00 00,info@dental-vaduz.li,dentist;orthodontist,4.5,dentalvaduz,Vaduz,LI",
    "d2,No Coordinates,Somewhere,,9.52,,,,,,,,",
    "d3,Bad Lat,Somewhere,95,9.52,,,,,,,,",
    "d4,Schaan Dentist,,47.165,9.51,not a url,12,nope,dentist,9,,Schaan,LI",
    ",,,47.1,9.5,,,,,,,,",
    "d1,Duplicate,,47.1,9.5,,,,,,,,",
  ].join("\n");

  test("good rows import with cleaned values; bad rows are reported by line and field and lose nothing else", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "my-dentists.csv");
    writeFileSync(file, CSV);
    const summary = await instance.services.placesImport.importFile(file);
    expect(summary.added).toBe(2);
    expect(summary.skipped).toEqual({ "invalid row": 3, "duplicate id": 1 });
    expect(summary.rejectedRows).toEqual([
      "line 3, field lat: lat is required",
      "line 4, field lat: lat must be a number between -90 and 90 (got \"95\")",
      "line 6, field name: name is required",
      "line 7, field placeId: csv:my-dentists:d1 appears earlier in the file",
    ]);
    const rows = instance.services.deps.db.prepare("SELECT * FROM places ORDER BY place_id").all() as Record<string, unknown>[];
    expect(rows[0]).toMatchObject({
      place_id: "csv:my-dentists:d1",
      name: "Dental Vaduz",
      website: "https://dental-vaduz.li/",
      email: "info@dental-vaduz.li",
      rating: 4.5,
      categories: '["dentist","orthodontist"]',
      socials: '{"facebook":"https://www.facebook.com/dentalvaduz"}',
    });
    // Invalid optional values are dropped, the address falls back to the city.
    expect(rows[1]).toMatchObject({ name: "Schaan Dentist", address: "Schaan", website: null, phone: null, email: null, rating: null });
    expect(instance.services.placesImport.stats().sources[0]).toMatchObject({ kind: "csv", licence: "supplied by the user" });
  });

  test("a list's rows get category tags from their labels in any language, or from their brand; the search finds them by category", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "mixed.ndjson");
    const rows = [
      { placeId: "z", name: "Praxis Huber", lat: 47.141, lng: 9.521, categories: ["Zahnarzt"] },
      { placeId: "k", name: "Kahvila Aalto", lat: 47.142, lng: 9.522, categories: ["kahvila"] },
      { placeId: "s", name: "Starbucks", lat: 47.143, lng: 9.523 },
      { placeId: "n", name: "Müller Consulting GmbH", lat: 47.144, lng: 9.524 },
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    await instance.services.placesImport.importFile(file);
    const db = instance.services.deps.db;
    expect(db.prepare("SELECT place_id, category_tags FROM places ORDER BY place_id").all()).toEqual([
      { place_id: "csv:mixed:k", category_tags: "amenity=cafe" },
      { place_id: "csv:mixed:n", category_tags: "" },
      { place_id: "csv:mixed:s", category_tags: "amenity=cafe cuisine=coffee_shop" },
      { place_id: "csv:mixed:z", category_tags: "amenity=dentist" },
    ]);
    const search = async (keywords: string) =>
      (await instance.services.placeProvider.search({ center: { lat: 47.142, lng: 9.522 }, radiusKm: 2, keywords, cursor: null, signal: new AbortController().signal })).leads.map((l) => l.name);
    expect(await search("dentist")).toEqual(["Praxis Huber"]);
    expect(await search("café")).toEqual(["Kahvila Aalto", "Starbucks"]);
  });

  test("a list's own labels stay searchable as words beside labels that give category tags", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "accounts.csv");
    writeFileSync(
      file,
      ["name,lat,lng,categories", "Bäckerei Frick,47.141,9.521,bakery;key account", "Laden Marxer,47.142,9.522,key account;shop", "Praxis Beck,47.143,9.523,dentist;key account", "Café Wolf,47.144,9.524,cafe"].join("\n") + "\n",
    );
    await instance.services.placesImport.importFile(file);
    const search = async (keywords: string) =>
      (await instance.services.placeProvider.search({ center: { lat: 47.142, lng: 9.522 }, radiusKm: 2, keywords, cursor: null, signal: new AbortController().signal })).leads.map((l) => l.name).sort();
    expect(await search("key account")).toEqual(["Bäckerei Frick", "Laden Marxer", "Praxis Beck"]);
    // The labels that gave tags are still found through them, and only there.
    expect(await search("bakery")).toEqual(["Bäckerei Frick"]);
    expect(await search("dentist")).toEqual(["Praxis Beck"]);
  });

  test("re-importing an edited list updates changed rows in place and removes rows that are gone", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "list.ndjson");
    const a = { placeId: "a", name: "Alpha", lat: 47.1, lng: 9.5, categories: ["lawyer"] };
    const b = { placeId: "b", name: "Beta", lat: 47.2, lng: 9.6, socials: { instagram: "@beta" } };
    writeFileSync(file, [JSON.stringify(a), JSON.stringify(b), "{not json", "[1]"].join("\n") + "\n");
    const first = await instance.services.placesImport.importFile(file);
    expect(first).toMatchObject({ added: 2, skipped: { "invalid row": 2 } });
    expect(first.rejectedRows).toEqual(["line 3: not valid JSON", "line 4: must be a JSON object"]);
    const idBefore = instance.services.deps.db.prepare("SELECT id FROM places WHERE place_id = 'csv:list:a'").get();

    writeFileSync(file, JSON.stringify({ ...a, name: "Alpha & Partners" }) + "\n");
    const second = await instance.services.placesImport.importFile(file);
    expect(second).toMatchObject({ added: 0, updated: 1, removed: 1, total: 1 });
    expect(instance.services.deps.db.prepare("SELECT id, name FROM places").all()).toEqual([{ ...(idBefore as object), name: "Alpha & Partners" }]);
    expect(instance.services.placesImport.stats().index).toMatchObject({ places: 1 });
  });

  test("a newer dated extract of the same region continues its source: compared place by place, not a second source", async () => {
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    const dir = tempDir();
    const node = (id: number, name: string, lng: number) =>
      `<node id="${id}" lat="47.14" lon="${lng}"><tag k="name" v="${name}"/><tag k="shop" v="bakery"/></node>`;
    const extract = (file: string, nodes: string[]) => {
      writeFileSync(join(dir, file), `<?xml version="1.0"?>\n<osm version="0.6">\n${nodes.join("\n")}\n</osm>\n`);
      return join(dir, file);
    };
    const first = await service.importFile(extract("village-2026-01-01.osm", [node(1, "Alpha", 9.51), node(2, "Beta", 9.52), node(3, "Gamma", 9.53)]));
    expect(first).toMatchObject({ added: 3, total: 3 });
    expect(first.continuesSource).toBeUndefined();
    const idOf = (placeId: string) => instance.services.deps.db.prepare("SELECT id FROM places WHERE place_id = ?").pluck().get(placeId);
    const betaRow = idOf("osm:node:2");

    // Geofabrik's yymmdd form of a later date: Gamma is gone, Alpha renamed, Delta new.
    const second = await service.importFile(extract("village-260201.osm", [node(1, "Alpha &amp; Co", 9.51), node(2, "Beta", 9.52), node(4, "Delta", 9.54)]));
    expect(second).toMatchObject({ added: 1, updated: 1, unchanged: 1, removed: 1, total: 3, continuesSource: "village-2026-01-01.osm" });
    expect(service.stats().sources.map((s) => [s.name, s.place_count])).toEqual([["village-260201.osm", 3]]);
    expect(idOf("osm:node:2")).toBe(betaRow);
    expect(idOf("osm:node:3")).toBeUndefined();

    // Another region's dated extract is a source of its own.
    const other = await service.importFile(extract("town-2026-02-01.osm", [node(7, "Epsilon", 9.6)]));
    expect(other.continuesSource).toBeUndefined();
    expect(service.stats().sources.map((s) => s.name)).toEqual(["town-2026-02-01.osm", "village-260201.osm"]);
  });

  test("an import that fails half-way keeps the batches written, marks the source failed, and the next run completes it", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "big.ndjson");
    const rows = Array.from({ length: 25 }, (_, i) => JSON.stringify({ placeId: `p${i}`, name: `Place ${i}`, lat: 47 + i / 1000, lng: 9.5 }));
    writeFileSync(file, rows.join("\n") + "\n");
    const controller = new AbortController();
    const service = instance.services.placesImport;
    await expect(
      service.importFile(file, {
        batchSize: 10,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.places >= 10) controller.abort();
        },
      }),
    ).rejects.toThrow();
    const [failed] = service.stats().sources;
    expect(failed).toMatchObject({ status: "failed", place_count: 10 });
    // What was written is packed for the search too: a failed import leaves no stale cell.
    expect(service.stats().index).toMatchObject({ places: 10, staleCells: 0 });
    const done = await service.importFile(file, { batchSize: 10 });
    expect(done).toMatchObject({ added: 15, unchanged: 10, total: 25 });
    expect(service.stats().sources[0]).toMatchObject({ status: "complete", place_count: 25 });
  });

  dataTest("Ctrl-C is heard between batches also where the reader does no I/O (a PBF's ways, placed after its last pass)", async () => {
    const total = (await createTestInstance().services.placesImport.importFile(liechtensteinPbf())).total;
    const instance = createTestInstance();
    const service = instance.services.placesImport;
    const controller = new AbortController();
    let armed = false;
    await expect(
      service.importFile(liechtensteinPbf(), {
        batchSize: 10,
        signal: controller.signal,
        onProgress: (p) => {
          // Near the end, among the ways: the abort comes from the event loop, as a SIGINT handler's does.
          if (!armed && p.places >= total - 30) {
            armed = true;
            setImmediate(() => controller.abort());
          }
        },
      }),
    ).rejects.toThrow(/abort/i);
    const [failed] = service.stats().sources;
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed!.place_count).toBeLessThan(total);
  });

  test("unknown formats and missing files are refused before anything is written", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "places.xlsx");
    writeFileSync(file, "x");
    await expect(instance.services.placesImport.importFile(file)).rejects.toThrow(/places\.xlsx: unknown format; accepted: \.osm\.pbf/);
    await expect(instance.services.placesImport.importFile(join(tempDir(), "nope.csv"))).rejects.toThrow(/nope\.csv: no such file/);
    expect(instance.services.placesImport.stats().sources).toEqual([]);
  });
});
