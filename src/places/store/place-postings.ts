import type { Statement } from "better-sqlite3";
import type { Db } from "../../store/connection.js";
import { INDEXED_COLUMNS, postingsOfPlaces, type IndexedPlace } from "./cell-postings.js";
import { cellSql, outsideBound, type CellRanges } from "./geo-grid.js";
import { PostingsRebuild, type ParallelRefreshOptions } from "./postings-rebuild.js";
import { compareCodePoints, decodePostingLists, postingsCount, type PostingChunk } from "./postings-codec.js";

/**
 * The lead search's term index (migrations 013, 019 and 021): one row per (word, grid cell)
 * whose `postings` BLOB holds every place of that cell with that word (`termRowsOf`), as
 * records of POSTING_STRIDE values: [place, lat, lng, fields,
 * flags], ascending by place (varint-encoded, coordinates to 1e-7 degrees: `postings-codec.ts`).
 *
 * Why packed: turning SQLite rows into JavaScript values costs ~1 µs per row and value
 * column (better-sqlite3 builds an array and a number per value). The slowest 5 km
 * searches read ~4,000 postings (a common keyword in the densest towns): 8–18 ms in that
 * conversion alone as rows, against ~85 rows of one BLOB each decoded by a loop of varints.
 *
 * `places` is the truth: triggers on it (migration 019) list the cells a write touches
 * in `place_cells_stale`, and `refresh` rebuilds those cells from their places (found
 * through `places_by_cell`). A stale cell's postings are not used: the search computes
 * that cell's postings from its places instead (`scanStale`), so a search is always
 * exact, also half-way through an import. The importer rebuilds once an import ends
 * (rebuilding per batch would rewrite a dense cell once per batch that touches it), on
 * every core: `refreshInParallel` (`postings-rebuild.ts`).
 *
 * Two ways to read: `scanRanges`, per word and range of consecutive cells, one seek each
 * into the table's (term, cell) order (migration 021), and `scan`, per cell and term range
 * through the (cell, term) index, for prefixes of many words in small circles. Both return
 * one row per word, its BLOBs concatenated in SQL.
 */

function inRanges(term: string, ranges: readonly TermRange[]): boolean {
  return ranges.some(([from, to]) => compareCodePoints(term, from) >= 0 && compareCodePoints(term, to) < 0);
}

/** A range of terms `[from, to)`: a word prefix `[p, p + U+10FFFF)` or one term `[t, t + U+0001)`. */
export type TermRange = readonly [from: string, to: string];

/** The terms starting with `prefix`. */
export function prefixRange(prefix: string): TermRange {
  return [prefix, prefix + "\u{10FFFF}"];
}

/** Exactly this term (no term of the index holds a U+0000). */
export function exactRange(term: string): TermRange {
  return [term, term + "\u0001"];
}

export class PlacePostingsRepo {
  private readonly scanStatement;
  private readonly rangeScanStatement;
  private readonly termsStatement;
  private readonly staleStatement;
  private readonly anyStaleStatement;
  private stalePlacesStatement: Statement | undefined;

  constructor(private readonly db: Db) {
    // Every term range of a search in one statement: per range and cell, one range of the
    // (cell, term) index (CROSS JOIN keeps the ranges outside, so each seek has its cell
    // and its terms), then one lookup per row found.
    // A word's BLOBs come back concatenated (`group_concat` keeps a BLOB's bytes as they
    // are in a UTF-8 database; CAST makes the result a BLOB again): one row per word
    // instead of one per cell and word, since each row handed to JavaScript costs ~3 µs
    // (a 100 km circle reads ~2,000 BLOBs: 6 ms as rows, 0.1 ms concatenated).
    this.scanStatement = db
      .prepare(
        `SELECT p.term, CAST(group_concat(p.postings, '') AS BLOB) FROM json_each(?) r CROSS JOIN place_postings p
          WHERE p.cell IN (SELECT value FROM json_each(?)) AND p.term >= r.value ->> 0 AND p.term < r.value ->> 1
          GROUP BY p.term`,
      )
      .raw(true);
    // Driven by (word, first cell, last cell) triples: one seek each into the table's
    // (term, cell) order (migration 021), then neighbouring rows.
    this.rangeScanStatement = db
      .prepare(
        `SELECT p.term, CAST(group_concat(p.postings, '') AS BLOB) FROM json_each(?) j
           JOIN place_postings p ON p.term = j.value ->> 0 AND p.cell BETWEEN j.value ->> 1 AND j.value ->> 2
          GROUP BY p.term`,
      )
      .raw(true);
    // The distinct words with a prefix, one index seek each (a skip scan).
    this.termsStatement = db
      .prepare(
        `WITH RECURSIVE t(term) AS (
           SELECT min(term) FROM place_postings WHERE term >= @from AND term < @to
           UNION ALL
           SELECT (SELECT min(term) FROM place_postings WHERE term > t.term AND term < @to) FROM t WHERE t.term IS NOT NULL
         ) SELECT term FROM t WHERE term IS NOT NULL`,
      )
      .pluck();
    // One seek per range (a large circle is ~180 ranges but ~25,000 cells), after a check
    // that anything is stale at all (outside an import, nothing is).
    this.anyStaleStatement = db.prepare("SELECT EXISTS (SELECT 1 FROM place_cells_stale)").pluck();
    this.staleStatement = db
      .prepare("SELECT s.cell FROM json_each(?) r JOIN place_cells_stale s ON s.cell BETWEEN r.value ->> 0 AND r.value ->> 1")
      .pluck();
  }

  /**
   * The postings of these (stale) cells for the terms in the ranges, computed from the
   * cells' places that may lie within `radiusKm` of the centre: one chunk per term, as
   * `scan` returns them.
   */
  scanStale(cells: readonly number[], ranges: readonly TermRange[], center: { lat: number; lng: number }, radiusKm: number): PostingChunk[] {
    // The places of stale cells through places_by_cell. The last condition drops places of
    // the cells' overhang that are surely outside the circle (see `outsideBound`) before
    // they are tokenized.
    this.stalePlacesStatement ??= this.db
      .prepare(
        `SELECT ${INDEXED_COLUMNS} FROM places
          WHERE ${cellSql("lat", "lng")} IN (SELECT value FROM json_each(@cells))
            AND ((lat - @lat) * @k - (lat - @lat) * @k * (lat - @lat) * @k * (lat - @lat) * @k / 6)
              * ((lat - @lat) * @k - (lat - @lat) * @k * (lat - @lat) * @k * (lat - @lat) * @k / 6)
              + @cc * ((lng - @lng) * @k - (lng - @lng) * @k * (lng - @lng) * @k * (lng - @lng) * @k / 6)
              * ((lng - @lng) * @k - (lng - @lng) * @k * (lng - @lng) * @k * (lng - @lng) * @k / 6) <= @h
          ORDER BY id`,
      )
      .raw(true);
    const places = this.stalePlacesStatement.all({ cells: JSON.stringify(cells), ...outsideBound(center, radiusKm) }) as IndexedPlace[];
    return postingsOfPlaces(places, (term) => inRanges(term, ranges));
  }

  /** Which cells of these ranges are stale (their postings must not be read). */
  staleIn(ranges: CellRanges): Set<number> {
    if (this.anyStaleStatement.get() === 0) return new Set();
    return new Set(this.staleStatement.all(JSON.stringify(ranges)) as number[]);
  }

  /** The postings of every term in these ranges in these (fresh) cells: one statement, one row per cell and term. */
  scan(cellsJson: string, ranges: readonly TermRange[]): PostingChunk[] {
    const rows = this.scanStatement.all(JSON.stringify(ranges), cellsJson) as Array<[string, Buffer]>;
    return rows.map(([term, blob]) => ({ term, values: decodePostingLists(blob) }));
  }

  /** The distinct terms of a range that have postings anywhere. */
  termsIn([from, to]: TermRange): string[] {
    return this.termsStatement.all({ from, to }) as string[];
  }

  /**
   * The postings of these words in these ranges of consecutive (fresh) cells: one seek
   * per word and range, then its neighbouring rows. Circles' cells are mostly empty, and
   * a small circle's rows of cells are a few ranges: far fewer seeks than one per cell.
   */
  scanRanges(terms: readonly string[], ranges: ReadonlyArray<readonly [number, number]>): PostingChunk[] {
    const triples: Array<[string, number, number]> = [];
    for (const term of terms) for (const [first, last] of ranges) triples.push([term, first, last]);
    const rows = this.rangeScanStatement.all(JSON.stringify(triples)) as Array<[string, Buffer]>;
    return rows.map(([term, blob]) => ({ term, values: decodePostingLists(blob) }));
  }

  /**
   * The distinct words starting with `prefix` in these (fresh) cells, each with its
   * number of places there: the candidates of a typo correction (a rare path: it reads
   * every such word's postings header, not its places).
   */
  termsInCells(cellsJson: string, prefix: string): Map<string, number> {
    const rows = this.db
      .prepare(`SELECT term, substr(postings, 1, 8) FROM place_postings WHERE cell IN (SELECT value FROM json_each(?)) AND term >= ? AND term < ?`)
      .raw(true)
      .all(cellsJson, prefix, prefix + "\u{10FFFF}") as Array<[string, Buffer]>;
    const counts = new Map<string, number>();
    for (const [term, head] of rows) counts.set(term, (counts.get(term) ?? 0) + postingsCount(head));
    return counts;
  }

  /** How many cells wait for a rebuild. */
  staleCount(): number {
    return (this.db.prepare("SELECT count(*) FROM place_cells_stale").pluck().get() as number) ?? 0;
  }

  /**
   * Rebuild every stale cell's postings from its places, a bounded number of cells per
   * immediate transaction (`PostingsRebuild.refresh`). Returns the number of cells rebuilt.
   */
  refresh(): number {
    return new PostingsRebuild(this.db).refresh();
  }

  /** `refresh` with its CPU work on threads (`PostingsRebuild.refreshInParallel`). */
  refreshInParallel(options: ParallelRefreshOptions = {}): Promise<number> {
    return new PostingsRebuild(this.db).refreshInParallel(options);
  }
}
