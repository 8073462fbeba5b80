import { describe, expect, test } from "vitest";
import { placesRepoSetup, placeWrite } from "../helpers/place-writes.js";
import { termIndex } from "../helpers/place-terms.js";
import { cellOf, cellSql } from "../../src/core/geo-grid.js";

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
});
