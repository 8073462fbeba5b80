import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase, schemaVersion, StoreError, type Db } from "../../src/store/db.js";
import { dropPlacesFts } from "../../src/store/migrations/014-drop-places-fts.js";
import { postingsFromPlaces } from "../../src/store/migrations/019-postings-from-places.js";
import { MIGRATIONS, type Migration } from "../../src/store/migrations/index.js";
import { placeLabelWords } from "../../src/store/migrations/030-place-label-words.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { rebuildsRequested } from "../helpers/place-terms.js";
import { cellSql } from "../../src/places/store/geo-grid.js";

const tables = (db: Db) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe("database and migrations", () => {
  it("migrates an empty database to the newest version with the pragmas set", () => {
    const db = openDatabase(join(tempDir(), "outreach.db"));
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(tables(db)).toEqual(expect.arrayContaining(["users", "teams", "memberships", "personal_tokens", "plans", "places"]));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    db.close();
  });

  it("upgrades a database written by the previous version and keeps its data", () => {
    const file = join(tempDir(), "outreach.db");
    const previous = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.length - 1));
    expect(schemaVersion(previous)).toBe(MIGRATIONS.length - 1);
    previous.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_1', 'Ada', 'ada@example.com', 'now')").run();
    previous.close();
    const current = openDatabase(file);
    expect(schemaVersion(current)).toBe(MIGRATIONS.length);
    expect(current.prepare("SELECT name FROM users").get()).toEqual({ name: "Ada" });
    current.close();
  });

  it("rolls back a failing migration's schema together with its version", () => {
    const file = join(tempDir(), "outreach.db");
    const broken: Migration = {
      name: "half-done",
      up(db) {
        db.exec("CREATE TABLE half_done (id INTEGER)");
        throw new Error("boom");
      },
    };
    expect(() => openDatabase(file, [...MIGRATIONS, broken])).toThrow("boom");
    const db = new Database(file);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(tables(db)).not.toContain("half_done");
    db.close();
  });

  it("refuses a database newer than the program without touching it", () => {
    const file = join(tempDir(), "outreach.db");
    const future = new Database(file);
    future.exec("CREATE TABLE t (x)");
    future.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    future.close();
    const before = readFileSync(file);
    expect(() => openDatabase(file)).toThrow(StoreError);
    expect(() => openDatabase(file)).toThrow(/newer than this program.*upgrade outreach/);
    expect(readFileSync(file).equals(before)).toBe(true);
    const check = new Database(file, { readonly: true });
    expect(check.pragma("journal_mode", { simple: true })).toBe("delete");
    check.close();
  });

  it("drops the unused full-text index; places written before keep their R*Tree rows, and later writes still maintain it", () => {
    const file = join(tempDir(), "outreach.db");
    const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(dropPlacesFts)));
    before.exec(`INSERT INTO place_sources (id, kind, name, licence, attribution, imported_at) VALUES (1, 'csv', 'a.csv', 'x', 'x', 'now');
      INSERT INTO places (id, place_id, source_id, name, address, lat, lng, updated_at) VALUES (1, 'csv:a:1', 1, 'Dentist', 'Vaduz', 47.1, 9.5, 'now')`);
    expect(tables(before)).toContain("places_fts");
    before.close();
    // Up to the migration that dropped the R*Tree in turn (019).
    const db = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(postingsFromPlaces)));
    expect(tables(db).filter((t) => t.startsWith("places_fts"))).toEqual([]);
    // The R*Tree stores single-precision boxes rounded outwards: equal to about 1e-5 degrees.
    const rtree = () => db.prepare("SELECT id, min_lat, min_lng FROM places_rtree ORDER BY id").all();
    expect(rtree()).toEqual([{ id: 1, min_lat: expect.closeTo(47.1, 4), min_lng: expect.closeTo(9.5, 4) }]);
    db.exec(`UPDATE places SET lat = 47.2 WHERE id = 1;
      INSERT INTO places (id, place_id, source_id, name, address, lat, lng, updated_at) VALUES (2, 'csv:a:2', 1, 'Bakery', 'Vaduz', 47.3, 9.6, 'now')`);
    expect(rtree()).toEqual([
      { id: 1, min_lat: expect.closeTo(47.2, 4), min_lng: expect.closeTo(9.5, 4) },
      { id: 2, min_lat: expect.closeTo(47.3, 4), min_lng: expect.closeTo(9.6, 4) },
    ]);
    db.exec("DELETE FROM places WHERE id = 1");
    expect(rtree()).toHaveLength(1);
    db.close();
  });
  it("lists the label words of places written before migration 030 (folded as the search folds them) when the instance opens, and the labelled places by cell", () => {
    const dataDir = tempDir();
    const file = join(dataDir, "outreach.db");
    const before = openDatabase(file, MIGRATIONS.slice(0, MIGRATIONS.indexOf(placeLabelWords)));
    const source = before.prepare("INSERT INTO place_sources (kind, name, licence, attribution, imported_at) VALUES ('csv', 'list.csv', 'x', 'x', 'now')").run().lastInsertRowid;
    const insert = before.prepare(
      "INSERT INTO places (place_id, source_id, name, address, lat, lng, categories, category_text, category_tags, updated_at) VALUES (?, ?, ?, 'x', 47.1, 9.5, '[]', ?, '', 'now')",
    );
    insert.run("csv:list:1", source, "Müller AG", "Müller Spezial; Key-Account");
    insert.run("csv:list:2", source, "Bäckerei Huber", "");
    before.close();
    // The migration stands alone: it makes the table and asks opening the instance to fill it.
    const migrated = openDatabase(file);
    expect(migrated.prepare("SELECT count(*) FROM place_label_words").pluck().get()).toBe(0);
    expect(rebuildsRequested(migrated)).toContain("label-words");
    migrated.close();
    const db = createTestInstance({ dataDir }).services.deps.db;
    expect(db.prepare("SELECT word FROM place_label_words ORDER BY word").pluck().all()).toEqual(["account", "key", "muller", "spezial"]);
    expect(rebuildsRequested(db)).not.toContain("label-words");
    // The chunk writer's read of a chunk's labelled places goes through the partial index, not every place of the cells.
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT DISTINCT category_text FROM places WHERE ${cellSql("lat", "lng")} IN (SELECT value FROM json_each(?)) AND category_text <> ''`)
      .all("[1]") as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join("\n")).toContain("places_labelled_by_cell");
  });
});
