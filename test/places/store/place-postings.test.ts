import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { LocalPlaceProvider, termReadOf } from "../../../src/places/search/local.js";
import { openDatabase } from "../../../src/store/db.js";
import { MIGRATIONS, type Migration } from "../../../src/store/migrations/index.js";
import { placePostings } from "../../../src/store/migrations/013-place-postings.js";
import { cellCount, cellOf, cellSql, circleCellRanges, rangesWithout } from "../../../src/places/store/geo-grid.js";
import Database from "better-sqlite3";
import { PlacePostingsRepo, prefixRange } from "../../../src/places/store/place-postings.js";
import { compareCodePoints, decodePostingLists, decodePostings, encodePostings, indexCoordinate, postingsCount } from "../../../src/places/store/postings-codec.js";
import { postingsFromPlaces } from "../../../src/store/migrations/019-postings-from-places.js";
import { postingsByTerm } from "../../../src/store/migrations/021-postings-by-term.js";
import { labelTextBesideTags } from "../../../src/store/migrations/029-label-text-beside-tags.js";
import { tempDir } from "../../helpers/data-dir.js";
import { catchUpPlaces, packedIndex, rebuildsRequested, termIndex } from "../../helpers/place-terms.js";
import { placesRepoSetup, placeWrite as place } from "../../helpers/place-writes.js";
import { testVocabulary } from "../../helpers/places.js";

/**
 * A database file at the migration before `migration`, with one source of `kind` and a
 * statement that writes places into it as that schema holds them (labels and category tags).
 */
function databaseBefore(migration: Migration, kind: "csv" | "osm") {
  const file = join(tempDir(), "outreach.db");
  const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(migration)));
  const sourceId = (before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES (?, ?, 'x', 'x', 't') RETURNING id").get(kind, kind === "csv" ? "old.csv" : "x.osm.pbf") as { id: number }).id;
  const statement = before.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, category_text, category_tags, updated_at) VALUES (?, ?, ?, 'a', ?, ?, ?, ?, 't')");
  const insert = (placeId: string, name: string, lat: number, lng: number, categoryText: string, categoryTags: string) => statement.run(placeId, sourceId, name, lat, lng, categoryText, categoryTags);
  return { file, before, insert };
}

describe("packed postings (encoding)", () => {
  test("round-trips ids, fields and flags exactly and coordinates to 1e-7 degrees (OSM's own grid: exactly)", () => {
    const values = Float64Array.from([
      1, 47.141592653589793, 9.521234567890123, 3, 1,
      1024 ** 4 * 1023 + 5, -33.8688197, -151.2092955, 0, 0,
      2 ** 53 - 1, 89.9999999, 179.9999999, 31, 1,
    ]);
    const decoded = decodePostings(encodePostings(values));
    expect(decoded).toHaveLength(values.length);
    for (let i = 0; i < values.length; i++) {
      if (i % 5 === 1 || i % 5 === 2) {
        expect(Math.abs(decoded[i]! - values[i]!)).toBeLessThanOrEqual(0.5e-7);
        expect(decoded[i]).toBe(indexCoordinate(values[i]!));
      } else expect(decoded[i]).toBe(values[i]);
    }
    // An OSM node's coordinate (a whole number of 1e-7 degrees) comes back as the same double.
    expect(decodePostings(encodePostings(Float64Array.from([7, 471234567 / 1e7, 95212345 / 1e7, 1, 0])))[1]).toBe(471234567 / 1e7);
    expect(postingsCount(encodePostings(values))).toBe(3);
    // Close places of one cell cost about 11 bytes each, not 40.
    const cell = Float64Array.from(Array.from({ length: 100 }, (_, i) => [1000 + i * 3, 47.14 + (i % 10) * 0.0009, 9.52 + i * 0.00013, 1, 1]).flat());
    expect(encodePostings(cell).length).toBeLessThan(100 * 12);
  });

  test("a BLOB cut short or with bytes left over is refused, not read past its end", () => {
    const blob = encodePostings(Float64Array.from([1, 47, 9, 1, 0, 2, 47.1, 9.1, 1, 0]));
    expect(() => decodePostings(blob.subarray(0, blob.length - 1))).toThrow(/corrupt postings: truncated/);
    expect(() => decodePostings(Buffer.concat([blob, Buffer.from([0])]))).toThrow(/bytes after the last record/);
    expect(() => decodePostings(Buffer.from([100, 1, 2]))).toThrow(/100 records cannot fit in 3 bytes/);
  });

  test("BLOBs concatenated in SQL decode as all their records, each list from its own start", () => {
    const lists = [
      Float64Array.from([5, 47.1, 9.5, 1, 1, 9, 47.2, 9.4, 2, 0]),
      Float64Array.from([2, -33.8688197, -151.2092955, 31, 1]),
      Float64Array.from([2 ** 40, 0, 0, 0, 0, 2 ** 40 + 1, 1e-7, -1e-7, 3, 1]),
    ];
    const db = placesRepoSetup().db;
    // Through SQLite as the search reads them: group_concat, then CAST back to a BLOB.
    db.exec("CREATE TEMP TABLE blobs (k INTEGER, b BLOB)");
    const insert = db.prepare("INSERT INTO temp.blobs VALUES (1, ?)");
    for (const list of lists) insert.run(encodePostings(list));
    const joined = db.prepare("SELECT CAST(group_concat(b, '') AS BLOB) FROM temp.blobs GROUP BY k").pluck().get() as Buffer;
    expect(joined).toEqual(Buffer.concat(lists.map(encodePostings)));
    expect([...decodePostingLists(joined)]).toEqual(lists.flatMap((list) => [...decodePostings(encodePostings(list))]));
    expect(decodePostingLists(Buffer.alloc(0))).toHaveLength(0);
    expect(() => decodePostingLists(Buffer.concat([joined, Buffer.from([0])]))).toThrow(/an empty list/);
    expect(() => decodePostingLists(joined.subarray(0, joined.length - 1))).toThrow(/truncated/);
    expect(() => decodePostingLists(Buffer.from([100, 1, 2, 3, 4, 5, 6]))).toThrow(/cannot fit/);
  });
});

describe("packed postings (kept in step with the places)", () => {
  test("writes mark the cells they touch stale; refresh packs exactly the places' term rows and clears the list", () => {
    const { db, repo, source } = placesRepoSetup();
    const postings = new PlacePostingsRepo(db);
    const s = source("a.csv");
    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" }), place("p2", { name: "Café Wolf", categoryText: "cafe", lat: 47.2, lng: 9.6 })], "t1");
    expect(packedIndex(db).stale).toEqual([cellOf(47.14, 9.52), cellOf(47.2, 9.6)].sort((a, b) => a - b));
    expect(postings.refresh()).toBe(2);
    let index = packedIndex(db);
    expect(index.stale).toEqual([]);
    expect(index.packed).toHaveLength(5); // dentists vaduz dentist, cafe wolf
    expect(index.packed).toEqual(index.rows);

    // A move leaves the old cell's postings behind until the refresh: both cells are stale.
    repo.upsertBatch(s.id, [place("p2", { name: "Bäckerei Wolf", categoryText: "bakery", lat: 48.1, lng: 11.5 })], "t2");
    expect(packedIndex(db).stale).toEqual([cellOf(47.2, 9.6), cellOf(48.1, 11.5)].sort((a, b) => a - b));
    expect(postings.refresh()).toBe(2);
    index = packedIndex(db);
    expect(index.packed).toEqual(index.rows);
    expect(db.prepare("SELECT count(*) AS n FROM place_postings WHERE cell = ?").get(cellOf(47.2, 9.6))).toEqual({ n: 0 });

    // Unchanged rows write nothing, so nothing turns stale.
    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" })], "t3");
    expect(packedIndex(db).stale).toEqual([]);

    expect(repo.deleteSource(s.id)).toBe(2);
    postings.refresh();
    expect(db.prepare("SELECT count(*) AS n FROM place_postings").get()).toEqual({ n: 0 });
  });

  test("refresh works through more cells than one transaction takes, and two refreshes do not disturb each other", () => {
    const { db, repo, source } = placesRepoSetup();
    const s = source("grid.csv");
    // 2,500 places, each in its own cell (0.02° apart).
    const places = Array.from({ length: 2500 }, (_, i) => place(`g${i}`, { name: `Shop ${i}`, categoryText: "kiosk", lat: 40 + Math.floor(i / 50) * 0.02, lng: 5 + (i % 50) * 0.02 }));
    repo.upsertBatch(s.id, places, "t1");
    expect(packedIndex(db).stale).toHaveLength(2500);
    expect(new PlacePostingsRepo(db).refresh()).toBe(2500);
    expect(new PlacePostingsRepo(db).refresh()).toBe(0);
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toHaveLength(2500 * 3); // shop, N, kiosk
    expect(packed).toEqual(rows);
  });

  test("a search never reads a stale cell's postings: it computes them from that cell's places, and ranks exactly as after the rebuild", () => {
    const { db, repo, source } = placesRepoSetup();
    const s = source("a.csv");
    const center = { lat: 47.14, lng: 9.52 };
    const near = (i: number) => ({ lat: 47.14 + (i % 7) * 0.004, lng: 9.52 + Math.floor(i / 7) * 0.006 });
    repo.upsertBatch(s.id, Array.from({ length: 40 }, (_, i) => place(`r${i}`, { name: i % 3 ? `Ristorante ${i}` : `Pizzeria ${i}`, categoryText: "restaurant", ...near(i) })), "t1");
    new PlacePostingsRepo(db).refresh();
    const provider = new LocalPlaceProvider(db, { vocabulary: testVocabulary });
    const before = provider.rankedMatches(center, 5, "restaurant");
    expect(before).toHaveLength(40);
    // Rowids follow the batch's grid-cell order, not its order: look them up.
    const idOf = (placeId: string) => (db.prepare("SELECT id FROM places WHERE place_id = ?").get(placeId) as { id: number }).id;
    const [r0, r1] = [idOf("r0"), idOf("r1")];

    // Renamed and moved without a refresh: their cells are stale, their old postings still there.
    repo.upsertBatch(s.id, [place("r0", { name: "Gelateria Nuova", categoryText: "ice cream", ...near(0) }), place("r1", { name: "Ristorante 1", categoryText: "restaurant", lat: 47.6, lng: 9.52 })], "t2");
    expect(packedIndex(db).stale.length).toBeGreaterThan(0);
    const stale = provider.rankedMatches(center, 5, "restaurant");
    expect(stale.map((r) => r.id)).toEqual(before.map((r) => r.id).filter((id) => id !== r0 && id !== r1));
    expect(provider.rankedMatches(center, 5, "gelateria").map((r) => r.id)).toEqual([r0]);
    // Fresh cells are read by (word, cell range): the stale ones are left out of the ranges.
    const fresh = rangesWithout(circleCellRanges(center, 40, 1e6)!, new Set(packedIndex(db).stale));
    expect(termReadOf(cellCount(fresh), fresh.length, new PlacePostingsRepo(db).termsIn(prefixRange("restaurant")).length)).toBe("ranges");
    expect(provider.rankedMatches(center, 40, "restaurant").map((r) => r.id)).toEqual(stale.map((r) => r.id));

    new PlacePostingsRepo(db).refresh();
    expect(provider.rankedMatches(center, 5, "restaurant")).toEqual(stale);
    expect(provider.rankedMatches(center, 5, "gelateria").map((r) => r.id)).toEqual([r0]);
  });

  test("the migrations mark the cells of places written before them stale, and opening the instance packs them", () => {
    const file = join(tempDir(), "outreach.db");
    const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(placePostings)));
    const sourceId = before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('csv', 'old.csv', 'x', 'x', 't') RETURNING id").get() as { id: number };
    const insert = before.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, categories, category_text, updated_at) VALUES (?, ?, ?, 'a', ?, ?, ?, ?, 't')");
    insert.run("a", sourceId.id, "Pizzeria Roma", 47.1, 9.5, '["restaurant"]', "restaurant");
    insert.run("b", sourceId.id, "Hair Salon", 47.2, 9.6, '["hairdresser"]', "hairdresser");
    before.close();
    const after = openDatabase(file);
    try {
      expect(packedIndex(after).stale).toEqual([cellOf(47.1, 9.5), cellOf(47.2, 9.6)]);
      expect(rebuildsRequested(after)).toEqual(["label-words", "localities", "postings"]);
      catchUpPlaces(after);
      expect(rebuildsRequested(after)).toEqual([]);
      const { packed, rows, stale } = packedIndex(after);
      expect(stale).toEqual([]);
      // Pizzeria Roma #amenity=restaurant, Hair Salon #shop=hairdresser: the category tags came at open too (migration 015's backfill).
      expect(packed.map((r) => r.term).sort()).toEqual(["#amenity=restaurant", "#shop=hairdresser", "hair", "pizzeria", "roma", "salon"]);
      expect(packed).toEqual(rows);
      expect(termIndex(after).actual).toEqual(termIndex(after).expected);
    } finally {
      after.close();
    }
  });
});

describe("postings from places (migration 019)", () => {
  test("every place's cell is marked stale and opening the instance packs it from the places; place_terms and the R*Tree are gone and later writes still mark their cells", () => {
    const { file, before, insert } = databaseBefore(postingsFromPlaces, "csv");
    // A tagged place's category_text holds only the labels its tags do not say (migration 029).
    insert("a", "Pizzeria Roma", 47.1, 9.5, "", "amenity=restaurant");
    insert("b", "Hair Salon", 47.2, 9.6, "hairdresser", "");
    before.close();
    const after = openDatabase(file);
    try {
      expect(after.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'place_terms%' OR name LIKE 'places_rtree%'").all()).toEqual([]);
      expect(packedIndex(after)).toMatchObject({ packed: [], stale: [cellOf(47.1, 9.5), cellOf(47.2, 9.6)] });
      catchUpPlaces(after);
      const { packed, rows, stale } = packedIndex(after);
      expect(packed.map((r) => r.term).sort()).toEqual(["#amenity=restaurant", "hair", "hairdresser", "pizzeria", "roma", "salon"]);
      expect({ packed, stale }).toEqual({ packed: rows, stale: [] });
      after.prepare("UPDATE places SET name = 'Salon Bella' WHERE place_id = 'b'").run();
      expect(packedIndex(after).stale).toEqual([cellOf(47.2, 9.6)]);
      const { actual, expected } = termIndex(after);
      expect(actual.map((r) => r.term)).toContain("bella");
      expect(actual).toEqual(expected);
    } finally {
      after.close();
    }
  });

  test("migration 021 clusters the postings by (term, cell) and keeps every one of them; refresh and the search still agree", () => {
    const { file, before, insert } = databaseBefore(postingsByTerm, "csv");
    for (let i = 0; i < 60; i++) insert(`p${i}`, `Pizzeria ${i % 7}`, 47.1 + (i % 9) * 0.013, 9.5 + (i % 11) * 0.017, "", "amenity=restaurant");
    new PlacePostingsRepo(before).refresh();
    const packedBefore = packedIndex(before).packed;
    const provider = new LocalPlaceProvider(before, { vocabulary: testVocabulary });
    const rankedBefore = provider.rankedMatches({ lat: 47.14, lng: 9.55 }, 20, "pizzeria");
    before.close();
    const after = openDatabase(file);
    try {
      const table = after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'place_postings'").pluck().get() as string;
      expect(table).toMatch(/PRIMARY KEY \(term, cell\)/);
      expect(after.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'place_postings' AND type = 'index' AND sql IS NOT NULL").pluck().all()).toEqual(["place_postings_by_cell"]);
      expect(packedIndex(after)).toEqual({ packed: packedBefore, rows: packedBefore, stale: [] });
      expect(new LocalPlaceProvider(after, { vocabulary: testVocabulary }).rankedMatches({ lat: 47.14, lng: 9.55 }, 20, "pizzeria")).toEqual(rankedBefore);
      after.prepare("UPDATE places SET name = 'Trattoria Sole' WHERE place_id = 'p3'").run();
      const { actual, expected } = termIndex(after);
      expect(actual.map((r) => r.term)).toContain("trattoria");
      expect(actual).toEqual(expected);
    } finally {
      after.close();
    }
  });

  test("places are indexed by cell in plain SQL: the same cells as cellOf, read through the index, and a bare connection can write and check them", () => {
    const { db, repo, source } = placesRepoSetup();
    const cell = db.prepare(`SELECT ${cellSql("x.lat", "x.lng")} FROM (SELECT ? AS lat, ? AS lng) x`).pluck();
    const points: Array<[number, number]> = [[90, 180], [-90, -180], [0, 0], [47.14, 9.52], [-1e-7, -1e-7]];
    for (let i = 0; i < 2000; i++) points.push([(i % 180) * 0.01 * 7 - 63, (i % 240) * 0.015 * 9 - 179.5], [((i * 7919) % 18000) / 100 - 90, ((i * 104729) % 24000) * 0.015 - 180]);
    for (const [lat, lng] of points) expect(cell.get(lat, lng), `${lat},${lng}`).toBe(cellOf(lat, lng));
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT id FROM places WHERE ${cellSql("lat", "lng")} = 1`).all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(" ")).toContain("places_by_cell");

    repo.upsertBatch(source("a.csv").id, [place("p1", { name: "Café Wolf" })], "t");
    const file = db.name;
    const bare = new Database(file);
    try {
      bare.prepare("UPDATE places SET lat = 47.5 WHERE place_id LIKE '%p1'").run();
      expect(bare.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      bare.close();
    }
    expect(packedIndex(db).stale).toContain(cellOf(47.5, 9.52));
  });

  test("terms compare in code point order, as SQLite orders them, also beyond U+FFFF", () => {
    const words = ["z", "\u{1F600}", "\uFFFD", "a", "ab", ""];
    expect([...words].sort(compareCodePoints)).toEqual(["", "a", "ab", "z", "\uFFFD", "\u{1F600}"]);
    const db = placesRepoSetup().db;
    expect(db.prepare("SELECT value FROM json_each(?) ORDER BY value").pluck().all(JSON.stringify(words))).toEqual([...words].sort(compareCodePoints));
  });
});

describe("label text beside tags (migration 029)", () => {
  test("a tagged place keeps only what its tags do not say; the cells it touched are rebuilt to agree", () => {
    const { file, before, insert } = databaseBefore(labelTextBesideTags, "osm");
    insert("osm:node:1", "Pizzeria Roma", 47.1, 9.5, "restaurant", "amenity=restaurant");
    insert("osm:node:2", "Hair Salon", 47.2, 9.6, "hairdresser", "");
    before.close();
    const after = openDatabase(file);
    try {
      expect(after.prepare("SELECT place_id, category_text FROM places ORDER BY place_id").all()).toEqual([
        { place_id: "osm:node:1", category_text: "" },
        { place_id: "osm:node:2", category_text: "hairdresser" },
      ]);
      new PlacePostingsRepo(after).refresh();
      const { actual, expected } = termIndex(after);
      expect(actual).toEqual(expected);
      expect(actual.map((r) => r.term)).not.toContain("restaurant");
    } finally {
      after.close();
    }
  });
});
