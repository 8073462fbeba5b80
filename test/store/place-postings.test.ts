import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { LocalPlaceProvider, termReadOf } from "../../src/providers/places/local.js";
import { openDatabase } from "../../src/store/db.js";
import { MIGRATIONS } from "../../src/store/migrations/index.js";
import { placePostings } from "../../src/store/migrations/013-place-postings.js";
import { cellOf, cellRanges, cellsOfCircle } from "../../src/core/geo-grid.js";
import { compareCodePoints, decodePostings, encodePostings, PlacePostingsRepo, prefixRange } from "../../src/store/place-postings.js";
import { postingsFromPlaces } from "../../src/store/migrations/017-postings-from-places.js";
import { tempDir } from "../helpers/data-dir.js";
import { packedIndex, termIndex } from "../helpers/place-terms.js";
import { placesRepoSetup, placeWrite as place } from "../helpers/place-writes.js";
import { testVocabulary } from "../helpers/places.js";

describe("packed postings (encoding)", () => {
  test("round-trips every float64 exactly, also from a BLOB that is not 8-byte aligned", () => {
    const values = Float64Array.from([1, 47.141592653589793, 9.521234567890123, 1024 ** 4 * 1023 + 5, -1, 2 ** 53 - 1, 0.1, -0, 3, 4]);
    const blob = Buffer.from(encodePostings(values));
    expect(Array.from(decodePostings(blob))).toEqual(Array.from(values));
    // The same bytes three bytes into a larger buffer: a view is impossible, a copy is made.
    const shifted = Buffer.alloc(blob.length + 3);
    blob.copy(shifted, 3);
    const unaligned = shifted.subarray(3);
    expect(unaligned.byteOffset % 8).not.toBe(0);
    expect(Array.from(decodePostings(unaligned))).toEqual(Array.from(values));
  });

  test("a BLOB that is not whole records is refused, not read past its end", () => {
    expect(() => decodePostings(Buffer.alloc(41))).toThrow(/corrupt postings: 41 bytes/);
    expect(() => decodePostings(Buffer.alloc(16))).toThrow(/not a multiple of 40/);
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

    // Renamed and moved without a refresh: their cells are stale, their old postings still there.
    repo.upsertBatch(s.id, [place("r0", { name: "Gelateria Nuova", categoryText: "ice cream", ...near(0) }), place("r1", { name: "Ristorante 1", categoryText: "restaurant", lat: 47.6, lng: 9.52 })], "t2");
    expect(packedIndex(db).stale.length).toBeGreaterThan(0);
    const stale = provider.rankedMatches(center, 5, "restaurant");
    expect(stale.map((r) => r.id)).toEqual(before.map((r) => r.id).filter((id) => id !== 1 && id !== 2));
    expect(provider.rankedMatches(center, 5, "gelateria").map((r) => r.id)).toEqual([1]);
    // A large circle reads fresh cells by (word, cell range): the stale ones are left out of the ranges.
    const cells = cellsOfCircle(center, 40, 1e6)!;
    const staleCells = new Set(packedIndex(db).stale);
    const fresh = cells.filter((c) => !staleCells.has(c));
    expect(termReadOf(fresh.length, cellRanges(fresh).length, new PlacePostingsRepo(db).termsIn(prefixRange("restaurant")).length)).toBe("ranges");
    expect(provider.rankedMatches(center, 40, "restaurant").map((r) => r.id)).toEqual(stale.map((r) => r.id));

    new PlacePostingsRepo(db).refresh();
    expect(provider.rankedMatches(center, 5, "restaurant")).toEqual(stale);
    expect(provider.rankedMatches(center, 5, "gelateria").map((r) => r.id)).toEqual([1]);
  });

  test("the migration packs the term index of places written before it", () => {
    const file = join(tempDir(), "outreach.db");
    const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(placePostings)));
    const sourceId = before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('csv', 'old.csv', 'x', 'x', 't') RETURNING id").get() as { id: number };
    const insert = before.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, category_text, updated_at) VALUES (?, ?, ?, 'a', ?, ?, ?, 't')");
    insert.run("a", sourceId.id, "Pizzeria Roma", 47.1, 9.5, "restaurant");
    insert.run("b", sourceId.id, "Hair Salon", 47.2, 9.6, "hairdresser");
    before.close();
    const after = openDatabase(file);
    try {
      const { packed, rows, stale } = packedIndex(after);
      expect(stale).toEqual([]);
      expect(packed).toHaveLength(6);
      expect(packed).toEqual(rows);
      expect(termIndex(after).actual).toEqual(termIndex(after).expected);
    } finally {
      after.close();
    }
  });
});

describe("postings from places (migration 017)", () => {
  test("an index written with place_terms keeps its postings; place_terms and the R*Tree are gone and later writes still mark their cells", () => {
    const file = join(tempDir(), "outreach.db");
    const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(postingsFromPlaces)));
    const sourceId = (before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('csv', 'old.csv', 'x', 'x', 't') RETURNING id").get() as { id: number }).id;
    const insert = before.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, category_text, category_tags, updated_at) VALUES (?, ?, ?, 'a', ?, ?, ?, ?, 't')");
    insert.run("a", sourceId, "Pizzeria Roma", 47.1, 9.5, "restaurant", "amenity=restaurant");
    insert.run("b", sourceId, "Hair Salon", 47.2, 9.6, "hairdresser", "");
    new PlacePostingsRepo(before).refresh();
    const packedBefore = packedIndex(before).packed;
    before.close();
    const after = openDatabase(file);
    try {
      expect(after.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'place_terms%' OR name LIKE 'places_rtree%'").all()).toEqual([]);
      expect(packedIndex(after)).toEqual({ packed: packedBefore, rows: packedBefore, stale: [] });
      after.prepare("UPDATE places SET name = 'Salon Bella' WHERE place_id = 'b'").run();
      expect(packedIndex(after).stale).toEqual([cellOf(47.2, 9.6)]);
      const { actual, expected } = termIndex(after);
      expect(actual.map((r) => r.term)).toContain("bella");
      expect(actual).toEqual(expected);
    } finally {
      after.close();
    }
  });

  test("terms compare in code point order, as SQLite orders them, also beyond U+FFFF", () => {
    const words = ["z", "\u{1F600}", "\uFFFD", "a", "ab", ""];
    expect([...words].sort(compareCodePoints)).toEqual(["", "a", "ab", "z", "\uFFFD", "\u{1F600}"]);
    const db = placesRepoSetup().db;
    expect(db.prepare("SELECT value FROM json_each(?) ORDER BY value").pluck().all(JSON.stringify(words))).toEqual([...words].sort(compareCodePoints));
  });
});
