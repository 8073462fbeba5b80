import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { LocalPlaceProvider } from "../../../src/places/search/local.js";
import { parseBoundingBox, type ImportFileOptions } from "../../../src/places/import/places-import.js";
import type { Db } from "../../../src/store/db.js";
import { tempDir } from "../../helpers/data-dir.js";
import { createTestInstance, type TestInstance } from "../../helpers/instance.js";
import { packedIndex } from "../../helpers/place-terms.js";
import { HAS_SHARED_DATA, liechtensteinPbf, SHARED_DATA_MISSING } from "../../helpers/places-data.js";
import { testVocabulary, VADUZ } from "../../helpers/places.js";
import { seeded } from "../../helpers/seeded-random.js";

/**
 * `places import --replace` (and a downloaded region's new extract) is atomic: stopped at
 * any moment before its swap, the region's earlier import is as it was, searchable with
 * the same results; stopped after it, the replacement is complete and exact.
 */

const SEARCHES = ["restaurant", "hotel", "bank", "dentist", "cafe"];
const BATCH = 50;

/** Every search's leads, in order, as a user would get them. */
async function searchResults(db: Db): Promise<unknown[]> {
  const local = new LocalPlaceProvider(db, { vocabulary: testVocabulary });
  const signal = new AbortController().signal;
  const out: unknown[] = [];
  for (const keywords of SEARCHES) out.push((await local.search({ center: VADUZ, radiusKm: 10, keywords, cursor: null, signal })).leads);
  return out;
}

/** The region as stored: its source row and every place, all columns. */
function stored(db: Db) {
  return {
    sources: db.prepare("SELECT * FROM place_sources ORDER BY id").all(),
    places: db.prepare("SELECT * FROM places ORDER BY id").all(),
    localities: db.prepare("SELECT count(*) FROM localities").pluck().get(),
  };
}

/** A replacement stopped once `after` places are written (abort from the progress callback, or from the event loop as a SIGINT handler's). */
async function interruptedReplace(instance: TestInstance, file: string, after: number, fromEventLoop: boolean, extra: ImportFileOptions = {}): Promise<void> {
  const controller = new AbortController();
  let armed = false;
  await expect(
    instance.services.placesImport.importFile(file, {
      ...extra,
      replace: true,
      batchSize: BATCH,
      signal: controller.signal,
      onProgress: (p) => {
        if (armed || p.places < after) return;
        armed = true;
        if (fromEventLoop) setImmediate(() => controller.abort());
        else controller.abort();
      },
    }),
  ).rejects.toThrow(/abort/i);
}

describe.skipIf(!HAS_SHARED_DATA)(`replacing a region atomically${SHARED_DATA_MISSING}`, () => {
  test("a --replace stopped at any batch leaves the earlier import as it was: complete, the same rows, the same search results", async () => {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    const first = await instance.services.placesImport.importFile(liechtensteinPbf(), { batchSize: BATCH });
    const before = stored(db);
    const results = await searchResults(db);
    expect((results[0] as unknown[]).length).toBeGreaterThanOrEqual(10);
    const batches = Math.ceil(first.total / BATCH);
    // The first and last batches, and random ones for three seeds.
    const moments = [1, batches];
    for (const seed of [7, 29, 113]) moments.push(1 + Math.floor(seeded(seed)() * batches));
    for (const [i, batch] of moments.entries()) {
      instance.clock.advance(60_000);
      await interruptedReplace(instance, liechtensteinPbf(), Math.min(batch * BATCH, first.total), i % 2 === 1);
      expect(stored(db)).toEqual(before);
      expect(instance.services.placesImport.stats().sources[0]).toMatchObject({ status: "complete", place_count: first.total });
      expect(await searchResults(db)).toEqual(results);
      // Nothing left over: no staged place, no stale cell, the packed index exact.
      expect(db.prepare("SELECT count(*) FROM temp.places_staging").pluck().get()).toBe(0);
      const { packed, rows, stale } = packedIndex(db);
      expect(stale).toEqual([]);
      expect(packed).toEqual(rows);
    }
    // And a replacement let through is as complete as the first import.
    const replaced = await instance.services.placesImport.importFile(liechtensteinPbf(), { replace: true });
    expect(replaced).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: first.total, total: first.total, unchangedFile: false });
    expect(await searchResults(db)).toEqual(results);
  });

  test("a --replace stopped after its swap is complete: the new places, exact searches while cells wait for packing, exact packing after", async () => {
    // The reference: the whole file imported once.
    const reference = createTestInstance();
    await reference.services.placesImport.importFile(liechtensteinPbf());
    const expected = await searchResults(reference.services.deps.db);

    const instance = createTestInstance();
    const db = instance.services.deps.db;
    // First only the country's western part, then the whole file, stopped while the cells it touched are packed.
    const west = await instance.services.placesImport.importFile(liechtensteinPbf(), { bbox: parseBoundingBox("9.4,47.0,9.53,47.3") });
    const full = reference.services.placesImport.stats().sources[0]!.place_count;
    expect(west.total).toBeLessThan(full);
    const controller = new AbortController();
    await expect(
      instance.services.placesImport.importFile(liechtensteinPbf(), {
        replace: true,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.finishing?.step === "search index") controller.abort();
        },
      }),
    ).rejects.toThrow(/abort/i);
    expect(instance.services.placesImport.stats().sources[0]).toMatchObject({ status: "complete", place_count: full });
    expect(instance.services.placesImport.stats().index.staleCells).toBeGreaterThan(0);
    // The stale cells are read from their places: the same leads as the reference's packed index gives.
    expect(await searchResults(db)).toEqual(expected);
    instance.services.placesImport.reindex();
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(rows);
    expect(await searchResults(db)).toEqual(expected);
  });
});

describe("replacing a list", () => {
  test("the swap is a diff: gone places removed, changed ones updated in place (same rowid), new ones added", async () => {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    const dir = tempDir();
    const file = join(dir, "shops.ndjson");
    const rows = (places: Array<[string, string]>) => places.map(([id, name], i) => JSON.stringify({ placeId: id, name, lat: 47.1 + i / 100, lng: 9.5 })).join("\n") + "\n";
    writeFileSync(file, rows([["a", "Bäckerei Beck"], ["b", "Café Wolf"], ["c", "Metzgerei Frick"]]));
    await instance.services.placesImport.importFile(file);
    const rowid = (id: string) => db.prepare("SELECT id FROM places WHERE place_id LIKE ?").pluck().get(`%:${id}`);
    const [a, b] = [rowid("a"), rowid("b")];
    writeFileSync(file, rows([["a", "Bäckerei Beck"], ["b", "Café Wolf am Markt"], ["d", "Blumen Marxer"]]));
    const replaced = await instance.services.placesImport.importFile(file, { replace: true });
    expect(replaced).toMatchObject({ added: 1, updated: 1, unchanged: 1, removed: 1, total: 3 });
    expect([rowid("a"), rowid("b")]).toEqual([a, b]);
    expect(rowid("c")).toBeUndefined();
    expect(db.prepare("SELECT name FROM places ORDER BY place_id").pluck().all()).toEqual(["Bäckerei Beck", "Café Wolf am Markt", "Blumen Marxer"]);
    const { packed, rows: expectedRows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(expectedRows);
  });

  test("a --replace stopped before its swap leaves a list exactly as it was, also when it would have removed and changed places", async () => {
    const instance = createTestInstance();
    const db = instance.services.deps.db;
    const file = join(tempDir(), "big.ndjson");
    const write = (suffix: string, count: number) =>
      writeFileSync(file, Array.from({ length: count }, (_, i) => JSON.stringify({ placeId: `p${i}`, name: `Place ${i}${suffix}`, lat: 47 + i / 1000, lng: 9.5 })).join("\n") + "\n");
    write("", 120);
    await instance.services.placesImport.importFile(file);
    const before = stored(db);
    write(" renamed", 100);
    for (const after of [BATCH, 2 * BATCH]) {
      await interruptedReplace(instance, file, after, after > BATCH);
      expect(stored(db)).toEqual(before);
    }
  });
});
