import { describe, expect, test } from "vitest";
import { placesRepoSetup, placeWrite } from "../../helpers/place-writes.js";
import { termIndex } from "../../helpers/place-terms.js";
import { cellOf, cellSql } from "../../../src/places/store/geo-grid.js";

const place = placeWrite;

const setup = placesRepoSetup;

describe("places repository (write side)", () => {
  test("a place ID imported by a second source moves to it (no duplicate), and dropping a source keeps the term index in step", () => {
    const { db, repo, source } = setup();
    const a = source("a.csv");
    const b = source("b.csv");
    expect(repo.upsertBatch(a.id, [place("shared"), place("only-a")], "t")).toEqual({ added: 2, updated: 0, unchanged: 0 });
    expect(repo.upsertBatch(b.id, [place("shared")], "t")).toEqual({ added: 0, updated: 1, unchanged: 0 });
    expect(db.prepare("SELECT source_id FROM places WHERE place_id = 'shared'").get()).toEqual({ source_id: b.id });
    expect(repo.deleteSource(a.id)).toBe(1);
    expect(repo.indexCounts()).toMatchObject({ places: 1 });
    const { actual, expected } = termIndex(db);
    expect(actual).toEqual(expected);
    expect(actual.length).toBeGreaterThan(0);
    expect(repo.sourceByName("a.csv")).toBeUndefined();
  });

  test("an unchanged place is not rewritten; a moved one is found in its new cell", () => {
    const { db, repo, source } = setup();
    const s = source("a.csv");
    repo.upsertBatch(s.id, [place("p", { lat: 47, lng: 9 })], "t1");
    expect(repo.upsertBatch(s.id, [place("p", { lat: 47, lng: 9 })], "t2")).toEqual({ added: 0, updated: 0, unchanged: 1 });
    expect(db.prepare("SELECT updated_at FROM places").get()).toEqual({ updated_at: "t1" });
    repo.upsertBatch(s.id, [place("p", { lat: 46, lng: 8 })], "t3");
    const inCell = (lat: number, lng: number) => db.prepare(`SELECT place_id FROM places WHERE ${cellSql("lat", "lng")} = ?`).pluck().all(cellOf(lat, lng));
    expect(inCell(46, 8)).toEqual(["p"]);
    expect(inCell(47, 9)).toEqual([]);
  });

  test("a batch lists its new places' cells stale once, with the insert trigger off only inside its transaction", () => {
    const { db, repo, source } = setup();
    const s = source("a.csv");
    const triggerSql = () => db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'places_stale_ai'").pluck().get();
    const before = triggerSql();
    expect(before).toMatch(/AFTER INSERT ON places/);
    db.exec("DELETE FROM place_cells_stale");
    // A batch as large as an import's (small ones keep the trigger on), in four cells.
    const corners = [[47.14, 9.52], [47.14, 9.521], [46.2, 6.15], [-33.9, 151.2]] as const;
    const points = Array.from({ length: 600 }, (_, i) => corners[i % 4]!);
    repo.upsertBatch(s.id, points.map(([lat, lng], i) => place(`p${i}`, { lat, lng })), "t");
    const stale = () => db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell").pluck().all();
    expect(stale()).toEqual([...new Set(points.map(([lat, lng]) => cellOf(lat, lng)))].sort((a, b) => a - b));
    expect(triggerSql()).toBe(before);
    // A batch that fails half-way rolls back with its places, and the trigger is still there.
    db.exec("DELETE FROM place_cells_stale");
    const failing = [...points.map(([lat, lng], i) => place(`q${i}`, { lat, lng })), place("q-last", { name: null as unknown as string })];
    expect(() => repo.upsertBatch(s.id, failing, "t")).toThrow(/NOT NULL/);
    expect(triggerSql()).toBe(before);
    expect(stale()).toEqual([]);
    expect(db.prepare("SELECT count(*) FROM places WHERE place_id LIKE 'q%'").pluck().get()).toBe(0);
    // Other writers still have it: an insert outside a batch lists its cell.
    db.prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, updated_at) VALUES ('r', ?, 'r', 'x', 1, 1, 't')").run(s.id);
    expect(stale()).toEqual([cellOf(1, 1)]);
  });
});
