import type { Statement } from "better-sqlite3";
import { cellOf } from "./geo-grid.js";
import type { Db } from "../../store/db.js";
import { raisePageCache } from "./page-cache.js";

/**
 * The write side of the places index: sources, batched upserts, removal of places gone
 * from a re-imported file. (The read side, for search, is `place-search.ts`; the
 * geocoder's localities are `localities.ts`.) Triggers on `places` list the cells a write
 * touches as stale for the term index (migration 019); `upsertBatch` lists its inserts'
 * cells itself, once per batch, with the insert trigger off inside its transaction.
 */

export type SourceKind = "osm" | "overture" | "csv" | "ndjson";

export interface PlaceSourceRow {
  id: number;
  kind: SourceKind;
  name: string;
  data_date: string | null;
  licence: string;
  attribution: string;
  imported_at: string;
  place_count: number;
  status: "importing" | "complete" | "failed";
  /** What its last complete import read (migration 020); null while importing or after a failure. */
  fingerprint: string | null;
}

/** A place as written, one field per column (JSON already serialised); the importers' PlaceRecord is its decoded form. */
export interface PlaceWrite {
  /** Stable per source: `osm:node:123`, `osm:way:456`, `overture:<id>`, `csv:<source>:<key>`. */
  placeId: string;
  name: string;
  /** One line, never empty (falls back to city, postcode, country, then coordinates). */
  address: string;
  street: string | null;
  housenumber: string | null;
  postcode: string | null;
  city: string | null;
  /** ISO 3166-1 alpha-2, upper case, or null when the data does not say. */
  country: string | null;
  lat: number;
  lng: number;
  website: string | null;
  phone: string | null;
  email: string | null;
  /** JSON of the socials object, or null. */
  socials: string | null;
  rating: number | null;
  /** JSON array of readable labels. */
  categories: string;
  /** The labels joined by spaces: what the term index reads. */
  categoryText: string;
  /** Category tag terms, space-separated ("amenity=dentist healthcare=dentist"). */
  categoryTags: string;
  cuisine: string | null;
  brand: string | null;
  description: string | null;
  openingHours: string | null;
  /** JSON array of upstream records (Overture `sources[]`), or null. */
  provenance: string | null;
}

export interface CategoryBackfillRow {
  id: number;
  /** JSON array of labels. */
  categories: string;
  name: string;
  brand: string | null;
  lat: number;
  lng: number;
}

export interface BatchResult {
  added: number;
  updated: number;
  unchanged: number;
}

export interface SourceStats extends PlaceSourceRow {
  with_website: number;
  with_phone: number;
  with_email: number;
}

/** Columns compared to decide whether a re-imported place changed (unchanged rows are not rewritten: no index churn). */
export const CONTENT_COLUMNS = [
  "source_id", "name", "address", "street", "housenumber", "postcode", "city", "country", "lat", "lng", "website", "phone",
  "email", "socials", "rating", "categories", "category_text", "category_tags", "cuisine", "brand", "description", "opening_hours",
  "provenance",
] as const;

/** The trigger that lists an inserted place's cell as stale for the term index (migration 019). */
const INSERT_TRIGGER = "places_stale_ai";

/** Batches from this size take the insert trigger off (two schema changes cost more than a few places' trigger runs). */
const TRIGGER_OFF_FROM = 500;

/** WAL pages between checkpoints while an import writes (64 MiB instead of SQLite's 4): an index page rewritten by many batches is copied back once. */
const IMPORT_AUTOCHECKPOINT_PAGES = 16_384;

export class PlacesRepo {
  private readonly findPlace: Statement<[string], { id: number }>;
  private readonly insertPlace: Statement;
  private readonly updatePlace: Statement;
  private readonly markSeen: Statement;
  /**
   * Whether the source being imported had places when its import began: only then can
   * some of them be missing from the file, so only then does the import note the rows it
   * writes (a first import of a country skips 2 million such notes).
   */
  private removesUnseen = true;
  private readonly markCellsStale: Statement;
  private insertTrigger: string | null | undefined;

  constructor(private readonly db: Db) {
    // Which rows this import has written, to remove the source's other rows at the end.
    // A temp table is private to this connection and vanishes with it.
    db.exec("CREATE TEMP TABLE IF NOT EXISTS import_seen (place_rowid INTEGER PRIMARY KEY)");
    this.findPlace = db.prepare("SELECT id FROM places WHERE place_id = ?");
    // Positional parameters: binding 25 values by name cost a third of an insert (bench/country-import.js).
    const placeholders = CONTENT_COLUMNS.map(() => "?").join(", ");
    this.insertPlace = db.prepare(`INSERT INTO places (place_id, ${CONTENT_COLUMNS.join(", ")}, updated_at) VALUES (?, ${placeholders}, ?)`);
    this.updatePlace = db.prepare(
      `UPDATE places SET ${CONTENT_COLUMNS.map((c) => `${c} = ?`).join(", ")}, updated_at = ?
       WHERE id = ? AND (${CONTENT_COLUMNS.map((c) => `${c} IS NOT ?`).join(" OR ")})`,
    );
    this.markSeen = db.prepare("INSERT OR IGNORE INTO temp.import_seen (place_rowid) VALUES (?)");
    this.markCellsStale = db.prepare("INSERT OR IGNORE INTO place_cells_stale (cell) SELECT value FROM json_each(?)");
  }

  /**
   * Settings for the duration of an import, restored by the returned function: a larger
   * page cache and rarer automatic checkpoints. With SQLite's defaults (64 MiB of cache
   * here, a checkpoint every 4 MiB of WAL) an import's random index writes fell from 9,000
   * to 3,400 places/s once the database outgrew the cache.
   */
  beginBulkWrites(): () => void {
    const autocheckpoint = this.db.pragma("wal_autocheckpoint", { simple: true }) as number;
    // Its indexes' hot pages (place IDs, cells) stay in memory up to a country.
    const restoreCache = raisePageCache(this.db);
    // 0 means a background thread checkpoints (src/store/checkpointer.ts): leave it so.
    if (autocheckpoint > 0) this.db.pragma(`wal_autocheckpoint = ${Math.max(autocheckpoint, IMPORT_AUTOCHECKPOINT_PAGES)}`);
    return () => {
      restoreCache();
      if (!this.db.open) return;
      if (autocheckpoint > 0) {
        this.db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
        // Copy the import's WAL back now rather than in some later request.
        this.db.pragma("wal_checkpoint(PASSIVE)");
      }
    };
  }

  /** Every source, by name. */
  allSources(): PlaceSourceRow[] {
    return this.db.prepare("SELECT * FROM place_sources ORDER BY name").all() as PlaceSourceRow[];
  }

  /** Give a source a new name (a newer extract of its region continues it); returns it as renamed. */
  renameSource(sourceId: number, name: string): PlaceSourceRow {
    return this.db.prepare("UPDATE place_sources SET name = ? WHERE id = ? RETURNING *").get(name, sourceId) as PlaceSourceRow;
  }

  sourceByName(name: string): PlaceSourceRow | undefined {
    return this.db.prepare("SELECT * FROM place_sources WHERE name = ?").get(name) as PlaceSourceRow | undefined;
  }

  /** Start (or restart) importing a source: create its row or mark the existing one as importing. */
  beginSource(row: { kind: SourceKind; name: string; dataDate: string | null; licence: string; attribution: string; now: string }): PlaceSourceRow {
    return this.db.transaction(() => {
      this.db.exec("DELETE FROM temp.import_seen");
      const source = this.db
        .prepare(
          `INSERT INTO place_sources (kind, name, data_date, licence, attribution, imported_at, status)
           VALUES (@kind, @name, @dataDate, @licence, @attribution, @now, 'importing')
           ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, status = 'importing', fingerprint = NULL
           RETURNING *`,
        )
        .get(row) as PlaceSourceRow;
      this.removesUnseen = this.db.prepare("SELECT 1 FROM places WHERE source_id = ? LIMIT 1").get(source.id) !== undefined;
      return source;
    }).immediate();
  }

  /** Drop a source and its places (their cells of the term index turn stale through the triggers). Returns the places removed. */
  deleteSource(sourceId: number): number {
    return this.db.transaction(() => {
      const { n } = this.db.prepare("SELECT count(*) AS n FROM places WHERE source_id = ?").get(sourceId) as { n: number };
      this.db.prepare("DELETE FROM places WHERE source_id = ?").run(sourceId);
      this.db.prepare("DELETE FROM place_sources WHERE id = ?").run(sourceId);
      return n;
    }).immediate();
  }

  /**
   * Insert or update one batch in one immediate transaction. A place already in the index
   * (same place ID, from this or another source) is updated in place, keeping its rowid;
   * an identical one is left alone.
   *
   * The batch is written in grid-cell order: consecutive inserts then land next to each
   * other in `places_by_cell`, and a cell's new places in neighbouring rows of `places`,
   * which the packing of the term index and the search read cell by cell.
   */
  upsertBatch(sourceId: number, places: readonly PlaceWrite[], now: string): BatchResult {
    // Free to reorder: importers yield each place ID once per file (lists skip a repeated key).
    const byCell = places.map((p) => ({ p, cell: cellOf(p.lat, p.lng) })).sort((a, b) => a.cell - b.cell);
    return this.db.transaction(() => {
      // The insert trigger's work (one stale-cell insert per place: a sixth of an insert's
      // cost) is done once per batch instead: the trigger is off for this transaction only,
      // so every other writer, and this one after a crash, still has it.
      const insertTrigger = places.length >= TRIGGER_OFF_FROM ? this.insertTriggerSql() : null;
      if (insertTrigger) this.db.exec(`DROP TRIGGER ${INSERT_TRIGGER}`);
      const insertedCells: number[] = [];
      const result: BatchResult = { added: 0, updated: 0, unchanged: 0 };
      for (const { p, cell } of byCell) {
        // In CONTENT_COLUMNS order.
        const values = [
          sourceId, p.name, p.address, p.street, p.housenumber, p.postcode, p.city, p.country, p.lat, p.lng, p.website, p.phone,
          p.email, p.socials, p.rating, p.categories, p.categoryText, p.categoryTags, p.cuisine, p.brand, p.description, p.openingHours,
          p.provenance,
        ];
        const existing = this.findPlace.get(p.placeId);
        let rowid: number | bigint;
        if (existing) {
          rowid = existing.id;
          if (this.updatePlace.run(...values, now, rowid, ...values).changes > 0) result.updated++;
          else result.unchanged++;
        } else {
          rowid = this.insertPlace.run(p.placeId, ...values, now).lastInsertRowid;
          result.added++;
          if (insertedCells[insertedCells.length - 1] !== cell) insertedCells.push(cell);
        }
        if (this.removesUnseen) this.markSeen.run(rowid);
      }
      if (insertTrigger) {
        this.markCellsStale.run(JSON.stringify(insertedCells));
        this.db.exec(insertTrigger);
      }
      return result;
    }).immediate();
  }

  /** The insert trigger as the schema has it (migration 019), or null if it has none. */
  private insertTriggerSql(): string | null {
    this.insertTrigger ??= (this.db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?").pluck().get(INSERT_TRIGGER) as string | undefined) ?? null;
    return this.insertTrigger;
  }

  /**
   * Record a source's complete import (`completeSource` and a replacement's swap): its
   * name (a continued older extract takes the file's), kind, data date, licence, count,
   * fingerprint. Returns the places it holds.
   */
  recordComplete(
    sourceId: number,
    info: { name?: string; kind?: SourceKind; dataDate: string | null; licence: string; attribution: string; now: string; fingerprint?: string | null },
  ): number {
    const { n } = this.db.prepare("SELECT count(*) AS n FROM places WHERE source_id = ?").get(sourceId) as { n: number };
    this.db
      .prepare(
        `UPDATE place_sources SET name = coalesce(?, name), kind = coalesce(?, kind), data_date = ?, licence = ?, attribution = ?, imported_at = ?,
                place_count = ?, status = 'complete', fingerprint = ? WHERE id = ?`,
      )
      .run(info.name ?? null, info.kind ?? null, info.dataDate, info.licence, info.attribution, info.now, n, info.fingerprint ?? null, sourceId);
    return n;
  }

  /** After a complete import: remove the source's places this import did not see, record the outcome. */
  completeSource(
    sourceId: number,
    info: { dataDate: string | null; licence: string; attribution: string; now: string; fingerprint?: string | null },
  ): { removed: number; placeCount: number } {
    return this.db.transaction(() => {
      const removed = this.removesUnseen
        ? this.db.prepare("DELETE FROM places WHERE source_id = ? AND id NOT IN (SELECT place_rowid FROM temp.import_seen)").run(sourceId).changes
        : 0;
      const n = this.recordComplete(sourceId, info);
      this.db.exec("DELETE FROM temp.import_seen");
      return { removed, placeCount: n };
    }).immediate();
  }

  /** An import stopped half-way: keep what was written (consistent, partial) and say so. */
  failSource(sourceId: number): void {
    this.db.transaction(() => {
      const { n } = this.db.prepare("SELECT count(*) AS n FROM places WHERE source_id = ?").get(sourceId) as { n: number };
      this.db.prepare("UPDATE place_sources SET status = 'failed', place_count = ? WHERE id = ?").run(n, sourceId);
      this.db.exec("DELETE FROM temp.import_seen");
    }).immediate();
  }

  /**
   * Places listed by migration 015 for category tags (they were written before places
   * had them): the next `limit` after `afterId`, with what the tags are derived from.
   */
  categoryBackfillBatch(afterId: number, limit: number): CategoryBackfillRow[] {
    return this.db
      .prepare(
        `SELECT p.id, p.categories, p.name, p.brand, p.lat, p.lng FROM place_category_backfill b JOIN places p ON p.id = b.place
          WHERE b.place > ? ORDER BY b.place LIMIT ?`,
      )
      .all(afterId, limit) as CategoryBackfillRow[];
  }

  /** Write backfilled category tags (its cells become stale through the triggers) and take the places off the list. */
  completeCategoryBackfill(rows: ReadonlyArray<{ id: number; categoryTags: string; categoryText: string }>): void {
    // With the tags, the label text becomes what they do not say (migration 029).
    const update = this.db.prepare("UPDATE places SET category_tags = ?, category_text = ? WHERE id = ? AND (category_tags IS NOT ? OR category_text IS NOT ?)");
    const done = this.db.prepare("DELETE FROM place_category_backfill WHERE place = ?");
    this.db.transaction(() => {
      for (const row of rows) {
        update.run(row.categoryTags, row.categoryText, row.id, row.categoryTags, row.categoryText);
        done.run(row.id);
      }
    }).immediate();
  }

  /**
   * Counts per source, with how many places have a website, phone, email: one pass over
   * the places (three correlated counts per source read a country's rows three times).
   */
  sourceStats(): SourceStats[] {
    return this.db
      .prepare(
        `SELECT s.*, coalesce(c.with_website, 0) AS with_website, coalesce(c.with_phone, 0) AS with_phone, coalesce(c.with_email, 0) AS with_email
           FROM place_sources s
           LEFT JOIN (SELECT source_id, count(website) AS with_website, count(phone) AS with_phone, count(email) AS with_email
                        FROM places GROUP BY source_id) c ON c.source_id = s.id
          ORDER BY s.name`,
      )
      .all() as SourceStats[];
  }

  /** Sanity figures: places, localities. */
  indexCounts(): { places: number; cities: number; postcodes: number } {
    const one = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      places: one("SELECT count(*) AS n FROM places"),
      cities: one("SELECT count(*) AS n FROM localities WHERE kind = 'city'"),
      postcodes: one("SELECT count(*) AS n FROM localities WHERE kind = 'postcode'"),
    };
  }
}
