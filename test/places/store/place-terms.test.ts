import { describe, expect, test } from "vitest";
import { SEARCH_FIELDS } from "../../../src/places/store/search-tokens.js";
import { openDatabase } from "../../../src/store/db.js";
import { MIGRATIONS } from "../../../src/store/migrations/index.js";
import { placeTerms } from "../../../src/store/migrations/011-place-terms.js";
import { categoryTags } from "../../../src/store/migrations/015-category-tags.js";
import { LocalPlaceProvider } from "../../../src/places/search/local.js";
import { createTestInstance } from "../../helpers/instance.js";
import { testVocabulary } from "../../helpers/places.js";
import { cellOf } from "../../../src/places/store/geo-grid.js";
import { CATEGORIZED, TAG_TERM_PREFIX, termRowsOf } from "../../../src/places/store/place-terms.js";
import { tempDir } from "../../helpers/data-dir.js";
import { placesRepoSetup, placeWrite } from "../../helpers/place-writes.js";
import { packedIndex, termIndex } from "../../helpers/place-terms.js";
import { join } from "node:path";

const place = placeWrite;

function setup() {
  const { db, repo, source } = placesRepoSetup();
  // A place's postings in the index (its cells rebuilt first), by term.
  const terms = (placeId: string) => {
    const id = (db.prepare("SELECT id FROM places WHERE place_id = ?").pluck().get(placeId) as number | undefined) ?? -1;
    return termIndex(db)
      .actual.filter((r) => r.place === id)
      .map((r) => ({ term: r.term, cell: r.cell }))
      .sort((a, b) => (a.term < b.term ? -1 : 1));
  };
  return { db, repo, source, terms };
}

describe("place term index (rows)", () => {
  test("one row per distinct folded word with the fields that hold it, and one per category tag", () => {
    // With tags, category_text holds only the labels the tags do not say (the import writes it so): they are words.
    const rows = termRowsOf(47.14, 9.52, ["Café Müller Café", "key account", null, "", "Kaffee und Kuchen"], "amenity=cafe cuisine=cake");
    expect(rows.map((r) => r.term).sort()).toEqual([`${TAG_TERM_PREFIX}amenity=cafe`, `${TAG_TERM_PREFIX}cuisine=cake`, "account", "cafe", "kaffee", "key", "kuchen", "muller", "und"]);
    const cafe = rows.find((r) => r.term === "cafe")!;
    expect(SEARCH_FIELDS.filter((_, f) => cafe.fields & (1 << f))).toEqual(["name"]);
    const key = rows.find((r) => r.term === "key")!;
    expect(SEARCH_FIELDS.filter((_, f) => key.fields & (1 << f))).toEqual(["category_text"]);
    const untagged = termRowsOf(47.14, 9.52, ["Café Müller Café", "cafe", null, "", null], "").find((r) => r.term === "cafe")!;
    expect(SEARCH_FIELDS.filter((_, f) => untagged.fields & (1 << f))).toEqual(["name", "category_text"]);
    expect(rows.find((r) => r.term === "#amenity=cafe")).toMatchObject({ fields: 0 });
    expect(rows.every((r) => r.flags === CATEGORIZED && r.cell === cellOf(47.14, 9.52))).toBe(true);
    // Transliterations fold like the letters they stand for.
    expect(termRowsOf(0, 0, ["Bäckerei Muenchen", null, null, null, null], "").map((r) => [r.term, r.flags])).toEqual([["backerei", 0], ["munchen", 0]]);
    expect(termRowsOf(0, 0, ["Baeckerei München", null, null, null, null], "").map((r) => r.term)).toEqual(["backerei", "munchen"]);
  });
});

describe("place term index (kept in sync by the write path)", () => {
  test("insert, unchanged re-import, rename, move, removal of unseen places and source deletion", () => {
    const { db, repo, source, terms } = setup();
    const s = source("a.csv");
    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" }), place("p2", { name: "Café Wolf", categoryText: "cafe" })], "t1");
    expect(terms("p1").map((t) => t.term)).toEqual(["dentist", "dentists", "vaduz"]);
    repo.upsertBatch(s.id, [place("p3", { name: "Zahnarzt Frick", categoryTags: "amenity=dentist healthcare=dentist" })], "t1");
    expect(terms("p3").map((t) => t.term)).toEqual(["#amenity=dentist", "#healthcare=dentist", "frick", "zahnarzt"]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);

    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" })], "t2");
    repo.upsertBatch(s.id, [place("p2", { name: "Bäckerei Wolf", categoryText: "bakery", lat: 48.1, lng: 11.5 })], "t2");
    expect(terms("p2")).toEqual([
      { term: "backerei", cell: cellOf(48.1, 11.5) },
      { term: "bakery", cell: cellOf(48.1, 11.5) },
      { term: "wolf", cell: cellOf(48.1, 11.5) },
    ]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);

    // A re-import that saw only p1 removes p2 and p3, and their terms with them.
    repo.beginSource({ kind: "csv", name: "a.csv", dataDate: null, licence: "x", attribution: "x", now: "t3" });
    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" })], "t3");
    expect(repo.completeSource(s.id, { dataDate: null, licence: "x", attribution: "x", now: "t3" }).removed).toBe(2);
    expect(terms("p2")).toEqual([]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);
    expect(termIndex(db).actual.filter((r) => r.term === "wolf")).toEqual([]);

    expect(repo.deleteSource(s.id)).toBe(1);
    expect(termIndex(db).actual).toEqual([]);
    expect(db.prepare("SELECT count(*) AS n FROM place_postings").get()).toEqual({ n: 0 });
  });

  test("the migration backfills places written before it", () => {
    const file = join(tempDir(), "outreach.db");
    const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(placeTerms)));
    const sourceId = before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('csv', 'old.csv', 'x', 'x', 't') RETURNING id").get() as { id: number };
    const insert = before.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, category_text, description, updated_at) VALUES (?, ?, ?, 'a', ?, ?, ?, ?, 't')");
    insert.run("a", sourceId.id, "Pizzeria Roma", 47.1, 9.5, "restaurant", null);
    insert.run("b", sourceId.id, "Hair Salon", 47.2, 9.6, "hairdresser", "Schnitt und Farbe");
    before.close();
    const after = openDatabase(file);
    try {
      const { actual, expected } = termIndex(after);
      expect(actual).toHaveLength(9); // pizzeria roma restaurant + hair salon hairdresser schnitt und farbe
      expect(actual).toEqual(expected);
    } finally {
      after.close();
    }
  });
});

describe("category tags for places written before them (the category-tags migration and the startup backfill)", () => {
  test("the migration rebuilds the index; the places service gives old places tags from their labels, then 'Zahnarzt' finds them", async () => {
    const dataDir = tempDir();
    const before = openDatabase(join(dataDir, "outreach.db"), MIGRATIONS.slice(0, MIGRATIONS.indexOf(categoryTags)));
    const sourceId = before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('osm', 'old.osm.pbf', 'x', 'x', 't') RETURNING id").get() as { id: number };
    const insert = before.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, categories, category_text, updated_at) VALUES (?, ?, ?, 'a', ?, ?, ?, ?, 't')");
    insert.run("osm:node:1", sourceId.id, "Dr. Frick", 47.141, 9.521, '["dentist"]', "dentist");
    insert.run("osm:node:2", sourceId.id, "Beck", 47.142, 9.522, '["bakery"]', "bakery");
    insert.run("osm:node:3", sourceId.id, "Lidl", 47.143, 9.523, "[]", "");
    before.close();

    const instance = createTestInstance({ dataDir });
    const db = instance.services.deps.db;
    const tags = db.prepare("SELECT place_id, category_tags FROM places ORDER BY place_id").all();
    // Labels through the vocabulary; a brand without labels through the name-suggestion-index.
    expect(tags).toEqual([
      { place_id: "osm:node:1", category_tags: "amenity=dentist" },
      { place_id: "osm:node:2", category_tags: "shop=bakery" },
      { place_id: "osm:node:3", category_tags: "shop=supermarket" },
    ]);
    expect(db.prepare("SELECT count(*) AS n FROM place_category_backfill").get()).toEqual({ n: 0 });
    expect(packedIndex(db).stale).toEqual([]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);
    const provider = new LocalPlaceProvider(db, { vocabulary: testVocabulary });
    const page = await provider.search({ center: { lat: 47.141, lng: 9.521 }, radiusKm: 2, keywords: "Zahnarzt", cursor: null, signal: new AbortController().signal });
    expect(page.leads.map((l) => l.placeId)).toEqual(["osm:node:1"]);
    // Once done, startup does nothing more.
    expect(instance.services.placesImport.backfillCategoryTags()).toBe(0);
  });
});
