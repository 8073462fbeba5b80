import { describe, expect, test } from "vitest";
import { SEARCH_FIELDS } from "../../src/core/search-tokens.js";
import { openDatabase } from "../../src/store/db.js";
import { MIGRATIONS } from "../../src/store/migrations/index.js";
import { placeTerms } from "../../src/store/migrations/011-place-terms.js";
import { cellOf } from "../../src/core/geo-grid.js";
import { termRowsOf, UNPACKED, unpackField } from "../../src/store/place-terms.js";
import { tempDir } from "../helpers/data-dir.js";
import { placesRepoSetup, placeWrite } from "../helpers/place-writes.js";
import { termIndex } from "../helpers/place-terms.js";
import { join } from "node:path";

const place = placeWrite;

function setup() {
  const { db, repo, source } = placesRepoSetup();
  const terms = (placeId: string) =>
    db.prepare("SELECT t.term, t.cell FROM place_terms t JOIN places p ON p.id = t.place WHERE p.place_id = ? ORDER BY t.term").all(placeId) as { term: string; cell: number }[];
  return { db, repo, source, terms };
}

describe("place term index (rows)", () => {
  test("one row per distinct folded word, with its count per field and every field's length", () => {
    const rows = termRowsOf(47.14, 9.52, ["Café Müller Café", "cafe", null, "", "Kaffee und Kuchen"]);
    expect(rows.map((r) => r.term).sort()).toEqual(["cafe", "kaffee", "kuchen", "muller", "und"]);
    const cafe = rows.find((r) => r.term === "cafe")!;
    expect(SEARCH_FIELDS.map((_, f) => unpackField(cafe.tf, f))).toEqual([2, 1, 0, 0, 0]);
    expect(SEARCH_FIELDS.map((_, f) => unpackField(cafe.words, f))).toEqual([3, 1, 0, 0, 3]);
    expect(rows.every((r) => r.cell === cellOf(47.14, 9.52))).toBe(true);
  });

  test("a field of 1,024 words or more is marked unpacked instead of being cut", () => {
    const rows = termRowsOf(0, 0, ["Shop", "", null, null, Array.from({ length: 1100 }, (_, i) => `w${i}`).join(" ")]);
    expect(rows.find((r) => r.term === "shop")).toMatchObject({ tf: UNPACKED, words: UNPACKED });
  });
});

describe("place term index (kept in sync by the write path)", () => {
  test("insert, unchanged re-import, rename, move, removal of unseen places and source deletion", () => {
    const { db, repo, source, terms } = setup();
    const s = source("a.csv");
    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" }), place("p2", { name: "Café Wolf", categoryText: "cafe" })], "t1");
    expect(terms("p1").map((t) => t.term)).toEqual(["dentist", "dentists", "vaduz"]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);

    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" })], "t2");
    repo.upsertBatch(s.id, [place("p2", { name: "Bäckerei Wolf", categoryText: "bakery", lat: 48.1, lng: 11.5 })], "t2");
    expect(terms("p2")).toEqual([
      { term: "backerei", cell: cellOf(48.1, 11.5) },
      { term: "bakery", cell: cellOf(48.1, 11.5) },
      { term: "wolf", cell: cellOf(48.1, 11.5) },
    ]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);

    // A re-import that saw only p1 removes p2, and its terms with it.
    repo.beginSource({ kind: "csv", name: "a.csv", dataDate: null, licence: "x", attribution: "x", now: "t3" });
    repo.upsertBatch(s.id, [place("p1", { name: "Dentists Vaduz", categoryText: "dentist" })], "t3");
    expect(repo.completeSource(s.id, { dataDate: null, licence: "x", attribution: "x", now: "t3" }).removed).toBe(1);
    expect(terms("p2")).toEqual([]);
    expect(termIndex(db).actual).toEqual(termIndex(db).expected);
    expect(db.prepare("SELECT count(*) AS n FROM place_terms WHERE term = 'wolf'").get()).toEqual({ n: 0 });

    expect(repo.deleteSource(s.id)).toBe(1);
    expect(db.prepare("SELECT count(*) AS n FROM place_terms").get()).toEqual({ n: 0 });
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
