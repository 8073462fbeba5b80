import { readdirSync, renameSync } from "node:fs";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { cellSql } from "../../../src/places/store/geo-grid.js";
import type { Db } from "../../../src/store/db.js";
import { PlacePostingsRepo } from "../../../src/places/store/place-postings.js";
import { packedIndex } from "../../helpers/place-terms.js";
import { placesRepoSetup, placeWrite as place } from "../../helpers/place-writes.js";

/** 1,200 places in 400 cells (three per cell, 0.02° apart), words shared between cells. */
function gridOfPlaces() {
  const setup = placesRepoSetup();
  const s = setup.source("grid.csv");
  const places = Array.from({ length: 1200 }, (_, i) => {
    const cell = Math.floor(i / 3);
    return place(`g${i}`, {
      name: `${["Bäckerei", "Café", "Pizzeria", "Salon"][i % 4]} ${["Wolf", "Sonne", "Adler"][cell % 3]} ${i}`,
      categoryText: ["bakery", "cafe", "restaurant", "hairdresser"][i % 4],
      categoryTags: i % 5 === 0 ? "" : ["shop=bakery", "amenity=cafe", "amenity=restaurant", "shop=hairdresser"][i % 4],
      // Inside the cell, away from its edges: 20 × 20 cells, every other one.
      lat: 40.005 + Math.floor(cell / 20) * 0.02 + (i % 3) * 0.001,
      lng: 5.0075 + (cell % 20) * 0.03 + (i % 3) * 0.001,
    });
  });
  setup.repo.upsertBatch(s.id, places, "t1");
  return setup;
}

/** Every row of the packed postings, BLOBs as hex, in the table's order. */
function postingsRows(db: Db): Array<{ term: string; cell: number; postings: string }> {
  return db.prepare("SELECT term, cell, hex(postings) AS postings FROM place_postings ORDER BY term, cell").all() as Array<{ term: string; cell: number; postings: string }>;
}

/** The postings a serial rebuild of every cell from scratch writes, on another connection (the table is left rebuilt). */
function rebuiltFromScratch(file: string): ReturnType<typeof postingsRows> {
  const other = new Database(file);
  try {
    other.exec(`DELETE FROM place_postings; INSERT OR IGNORE INTO place_cells_stale (cell) SELECT ${cellSql("lat", "lng")} FROM places`);
    new PlacePostingsRepo(other).refresh();
    return postingsRows(other);
  } finally {
    other.close();
  }
}

/**
 * The threads of this process (Linux): a postings thread left running shows here. (Not the
 * database file's descriptors: SQLite keeps a closed connection's open while another
 * connection of the process holds locks on the file.)
 */
function threadCount(): number {
  return readdirSync("/proc/self/task").length;
}

const parallel = { threads: 2, minCells: 0, chunkCells: 50, transactionCells: 100 };

describe("packed postings rebuilt on threads", () => {
  test("writes exactly the rows a serial rebuild writes, clears every stale cell and leaves no thread running", async () => {
    const { db } = gridOfPlaces();
    const stale = packedIndex(db).stale.length;
    expect(stale).toBe(400);
    const threads = threadCount();
    expect(await new PlacePostingsRepo(db).refreshInParallel(parallel)).toBe(stale);
    expect(threadCount()).toBe(threads);
    const { packed, rows, stale: left } = packedIndex(db);
    expect(left).toEqual([]);
    expect(packed).toEqual(rows);
    const written = postingsRows(db);
    expect(written.length).toBeGreaterThan(400 * 4);
    expect(rebuiltFromScratch(db.name)).toEqual(written);
  });

  test("another connection writing places into a chunk's cells after a thread read them: that chunk is rebuilt from the writing connection, nothing wrong is marked fresh", async () => {
    const { db } = gridOfPlaces();
    const other = new Database(db.name);
    let chunks = 0;
    try {
      await new PlacePostingsRepo(db).refreshInParallel({
        ...parallel,
        // The thread has read this chunk's places; now another connection changes them.
        onPacked: (cells) => {
          if (chunks++ !== 1) return;
          const inFirstCell = other.prepare(`SELECT id, lat, lng FROM places WHERE ${cellSql("lat", "lng")} = ? ORDER BY id LIMIT 1`).get(cells[0]!) as { id: number; lat: number; lng: number };
          other.prepare("UPDATE places SET name = 'Zither Haus' WHERE id = ?").run(inFirstCell.id);
          other
            .prepare("INSERT INTO places (place_id, source_id, name, address, lat, lng, category_text, updated_at) SELECT 'late', source_id, 'Quokka Kiosk', 'a', ?, ?, 'kiosk', 't' FROM places WHERE id = ?")
            .run(inFirstCell.lat + 0.0001, inFirstCell.lng + 0.0001, inFirstCell.id);
        },
      });
    } finally {
      other.close();
    }
    expect(chunks).toBe(8);
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(rows);
    expect(packed.map((r) => r.term)).toEqual(expect.arrayContaining(["zither", "quokka"]));
    const written = postingsRows(db);
    expect(rebuiltFromScratch(db.name)).toEqual(written);
  });

  test("a write through the writing connection itself into a chunk's cells after a thread read them is seen too", async () => {
    const { db } = gridOfPlaces();
    let chunks = 0;
    await new PlacePostingsRepo(db).refreshInParallel({
      ...parallel,
      onPacked: (cells) => {
        if (chunks++ !== 3) return;
        const id = db.prepare(`SELECT id FROM places WHERE ${cellSql("lat", "lng")} = ? ORDER BY id LIMIT 1`).pluck().get(cells[1]!);
        db.prepare("UPDATE places SET name = 'Walross Bar' WHERE id = ?").run(id);
      },
    });
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(rows);
    expect(packed.map((r) => r.term)).toContain("walross");
    expect(rebuiltFromScratch(db.name)).toEqual(postingsRows(db));
  });

  test("aborted half-way: the chunks written are exact, the rest stay stale, the threads end; a later refresh completes it", async () => {
    const { db } = gridOfPlaces();
    const threads = threadCount();
    const abort = new AbortController();
    let chunks = 0;
    const refresh = new PlacePostingsRepo(db).refreshInParallel({
      ...parallel,
      signal: abort.signal,
      onPacked: () => {
        if (++chunks === 3) abort.abort(new Error("stopped by the operator"));
      },
    });
    await expect(refresh).rejects.toThrow("stopped by the operator");
    expect(threadCount()).toBe(threads);
    const half = packedIndex(db);
    // The first transaction (two chunks) was written; the third chunk's was not: the abort came before it.
    expect(half.stale).toHaveLength(400 - 2 * 50);
    const fresh = new Set(half.rows.filter((r) => !half.stale.includes(r.cell)).map((r) => r.cell));
    expect(fresh.size).toBe(100);
    expect(half.packed).toEqual(half.rows.filter((r) => fresh.has(r.cell)));
    expect(new PlacePostingsRepo(db).refresh()).toBe(300);
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(rows);
  });

  test("a thread that cannot open the database fails the rebuild with its reason, leaves every cell stale and no thread behind", async () => {
    const { db } = gridOfPlaces();
    const file = db.name;
    const threads = threadCount();
    // The writing connection keeps the open file; a new connection finds nothing under its name.
    renameSync(file, `${file}.moved`);
    try {
      await expect(new PlacePostingsRepo(db).refreshInParallel(parallel)).rejects.toThrow(/unable to open database file|SQLITE_CANTOPEN/i);
    } finally {
      renameSync(`${file}.moved`, file);
    }
    expect(threadCount()).toBe(threads);
    expect(packedIndex(db).stale).toHaveLength(400);
    expect(new PlacePostingsRepo(db).refresh()).toBe(400);
  });

  test("with few stale cells or no threads it is the serial rebuild (no thread is started: no file is opened again)", async () => {
    const { db } = gridOfPlaces();
    const file = db.name;
    renameSync(file, `${file}.moved`);
    try {
      expect(await new PlacePostingsRepo(db).refreshInParallel({ threads: 2, minCells: 401 })).toBe(400);
      db.prepare(`INSERT OR IGNORE INTO place_cells_stale (cell) SELECT ${cellSql("lat", "lng")} FROM places`).run();
      expect(await new PlacePostingsRepo(db).refreshInParallel({ threads: 0, minCells: 0 })).toBe(400);
    } finally {
      renameSync(`${file}.moved`, file);
    }
    const { packed, rows, stale } = packedIndex(db);
    expect(stale).toEqual([]);
    expect(packed).toEqual(rows);
  });
});
