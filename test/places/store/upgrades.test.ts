import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { termRowsOf } from "../../../src/places/store/place-terms.js";
import { openDatabase, type Db } from "../../../src/store/db.js";
import { categoryTags } from "../../../src/store/migrations/015-category-tags.js";
import { MIGRATIONS } from "../../../src/store/migrations/index.js";
import { postingsFromPlaces } from "../../../src/store/migrations/019-postings-from-places.js";
import { packedIndex, rebuildsRequested } from "../../helpers/place-terms.js";
import { createTestInstance, type TestInstance } from "../../helpers/instance.js";
import { tempDir } from "../../helpers/data-dir.js";

/**
 * Data directories written by older versions open and search correctly: the migrations
 * stand alone (no repository code, no function of ours registered on the connection), and
 * opening the instance rebuilds what they marked stale.
 */

const center = { lat: 47.1411, lng: 9.5215 };

function addPlaces(db: Db, columns: "with-tags" | "labels-only"): void {
  const source = (db.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('osm', 'old.osm.pbf', 'x', 'x', 't') RETURNING id").get() as { id: number }).id;
  const rows: Array<[string, string, number, number, string]> = [
    ["osm:node:1", "Pizzeria Roma", 47.1412, 9.5216, "restaurant"],
    ["osm:node:2", "Zahnarztpraxis Frick", 47.1413, 9.5217, "dentist"],
  ];
  const sql =
    columns === "with-tags"
      ? "INSERT INTO places (place_id, source_id, name, address, lat, lng, categories, category_text, category_tags, updated_at) VALUES (?, ?, ?, 'Vaduz', ?, ?, ?, '', ?, 't')"
      : "INSERT INTO places (place_id, source_id, name, address, city, lat, lng, categories, category_text, updated_at) VALUES (?, ?, ?, 'Vaduz', 'Vaduz', ?, ?, ?, ?, 't')";
  const insert = db.prepare(sql);
  for (const [id, name, lat, lng, label] of rows) {
    if (columns === "with-tags") insert.run(id, source, name, lat, lng, JSON.stringify([label]), label === "dentist" ? "amenity=dentist" : "amenity=restaurant");
    else insert.run(id, source, name, lat, lng, JSON.stringify([label]), label);
  }
}

async function searchIds(instance: TestInstance, keywords: string): Promise<string[]> {
  const page = await instance.services.placeProvider.search({ center, radiusKm: 2, keywords, cursor: null, signal: new AbortController().signal });
  return page.leads.map((lead) => lead.placeId);
}

/**
 * The old program's `place_terms_of` (registered on every connection until the migrations
 * stood alone) and the triggers its migrations 011 and 015 made with it: 7 arguments before
 * category tags, 8 after.
 */
function writeLikeTheOldProgram(db: Db, form: "011" | "015"): void {
  db.table("place_terms_of", {
    columns: ["cell", "term", "tf", "words"],
    parameters: ["lat", "lng", "name", "category_text", "cuisine", "brand", "description", "category_tags"],
    *rows(lat: unknown, lng: unknown, ...values: unknown[]) {
      const text = values.map((v) => (typeof v === "string" ? v : null));
      for (const row of termRowsOf(Number(lat), Number(lng), text.slice(0, 5), text[5])) yield { cell: row.cell, term: row.term, tf: row.fields, words: row.flags };
    },
  });
  const terms = (row: string) =>
    `place_terms_of(${row}.lat, ${row}.lng, ${row}.name, ${row}.category_text, coalesce(${row}.cuisine, ''), coalesce(${row}.brand, ''), coalesce(${row}.description, '')${form === "015" ? `, ${row}.category_tags` : ""})`;
  db.exec(`
    CREATE TRIGGER place_terms_ai AFTER INSERT ON places BEGIN
      INSERT INTO place_terms (cell, term, place, lat, lng, tf, words) SELECT cell, term, new.id, new.lat, new.lng, tf, words FROM ${terms("new")};
    END;
    CREATE TRIGGER place_terms_ad AFTER DELETE ON places BEGIN
      DELETE FROM place_terms WHERE (cell, term, place) IN (SELECT cell, term, old.id FROM ${terms("old")});
    END;
  `);
}

describe("data directories written by older versions", () => {
  test("one at the previous migration opens, packs what the last migration marked, and finds its places", async () => {
    const dataDir = tempDir();
    const before = openDatabase(join(dataDir, "outreach.db"), MIGRATIONS.slice(0, MIGRATIONS.length - 1));
    addPlaces(before, "with-tags");
    before.close();
    const instance = createTestInstance({ dataDir });
    expect(await searchIds(instance, "pizzeria")).toEqual(["osm:node:1"]);
    expect(await searchIds(instance, "Zahnarzt")).toEqual(["osm:node:2"]);
  });

  for (const [form, version] of [["011", categoryTags], ["015", postingsFromPlaces]] as const) {
    test(`one whose place_terms triggers (migration ${form}'s first form) call the old program's JavaScript function upgrades without it and is searched`, async () => {
      const dataDir = tempDir();
      const before = openDatabase(join(dataDir, "outreach.db"), MIGRATIONS.slice(0, MIGRATIONS.indexOf(version)));
      writeLikeTheOldProgram(before, form);
      addPlaces(before, form === "011" ? "labels-only" : "with-tags");
      expect((before.prepare("SELECT count(*) AS n FROM place_terms").get() as { n: number }).n).toBeGreaterThan(0);
      before.close();

      const instance = createTestInstance({ dataDir });
      const db = instance.services.deps.db;
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'place_terms%'").all()).toEqual([]);
      expect(rebuildsRequested(db)).toEqual([]);
      const { packed, rows, stale } = packedIndex(db);
      expect(stale).toEqual([]);
      expect(packed.length).toBeGreaterThan(0);
      expect(packed).toEqual(rows);
      // The localities were rebuilt at open too (migration 016 only asked): the city resolves.
      if (form === "011") expect(instance.services.geocoder.resolveText("Vaduz")?.center.lat).toBeCloseTo(47.14, 1);
      expect(await searchIds(instance, "pizzeria")).toEqual(["osm:node:1"]);
      expect(await searchIds(instance, "Zahnarzt")).toEqual(["osm:node:2"]);
    });
  }
});
