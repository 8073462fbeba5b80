import type { Db } from "../../store/connection.js";
import { cellSql } from "./geo-grid.js";
import type { CellPostingsByTerm, CellPostingsRow } from "./packed-cell-postings.js";
import { eachTermOf } from "./place-terms.js";
import { compareCodePoints, encodePostings, indexCoordinate, type PostingChunk } from "./postings-codec.js";
import { SEARCH_FIELDS } from "./search-tokens.js";

/**
 * The lead search's postings computed from the places themselves (`places` is the truth):
 * what a rebuild of stale cells writes (`cellPostingsReader`, on the writing connection and
 * on each postings thread) and what the search reads for a cell that is stale
 * (`postingsOfPlaces`).
 */

/** What a place's postings are made of, in this order: id, position, SEARCH_FIELDS, category tags. */
export const INDEXED_COLUMNS = `id, lat, lng, ${SEARCH_FIELDS.join(", ")}, category_tags`;
export type IndexedPlace = [id: number, lat: number, lng: number, ...fields: Array<string | null>];

/**
 * The postings of some places (ascending by id), per term in SQLite's order of terms
 * (BINARY: by UTF-8 bytes, i.e. code points), optionally only the terms `wanted` keeps.
 */
export function postingsOfPlaces(places: readonly IndexedPlace[], wanted?: (term: string) => boolean): PostingChunk[] {
  const byTerm = new Map<string, number[]>();
  for (const place of places) addPostingsOf(place, byTerm, wanted);
  return [...byTerm.keys()].sort(compareCodePoints).map((term) => ({ term, values: Float64Array.from(byTerm.get(term)!) }));
}

/** Appends a place's postings ([place, lat, lng, fields, flags] per term) to the lists of `byTerm`. */
function addPostingsOf([id, lat, lng, ...text]: IndexedPlace, byTerm: Map<string, number[]>, wanted?: (term: string) => boolean): void {
  const storedLat = indexCoordinate(lat);
  const storedLng = indexCoordinate(lng);
  eachTermOf(text.slice(0, SEARCH_FIELDS.length), text[SEARCH_FIELDS.length], (term, fields, flags) => {
    if (wanted && !wanted(term)) return;
    let list = byTerm.get(term);
    if (!list) byTerm.set(term, (list = []));
    list.push(id, storedLat, storedLng, fields, flags);
  });
}

/**
 * The postings of some cells (ascending) from their places: per term, its cells in
 * ascending order with their encoded BLOBs. One statement reads every place of the cells
 * through `places_by_cell` (one read snapshot). What `refresh` runs on its connection and
 * each postings thread on its own.
 */
export function cellPostingsReader(db: Db): (cells: readonly number[]) => Map<string, Array<[cell: number, blob: Buffer]>> {
  const cellOfRow = cellSql("lat", "lng");
  const placesOf = db
    .prepare(`SELECT ${INDEXED_COLUMNS}, ${cellOfRow} FROM places WHERE ${cellOfRow} IN (SELECT value FROM json_each(?)) ORDER BY ${cellOfRow}, id`)
    .raw(true);
  return (cells) => {
    const out = new Map<string, Array<[number, Buffer]>>();
    let lists = new Map<string, number[]>();
    let cell = -1;
    const flush = () => {
      for (const [term, values] of lists) {
        let rows = out.get(term);
        if (!rows) out.set(term, (rows = []));
        rows.push([cell, encodePostings(values)]);
      }
      lists = new Map();
    };
    // Each row is an IndexedPlace with its cell after it, ordered by cell then id.
    for (const row of placesOf.iterate(JSON.stringify(cells)) as Iterable<IndexedPlace>) {
      const rowCell = row[row.length - 1] as number;
      if (rowCell !== cell) {
        flush();
        cell = rowCell;
      }
      addPostingsOf(row, lists);
    }
    flush();
    return out;
  };
}

/** Rebuilt postings in the table's (term, cell) order, in which they are written: neighbouring rows go to the same pages. */
export function inWriteOrder(byTerm: Map<string, Array<[cell: number, blob: Buffer]>>): CellPostingsByTerm {
  return [...byTerm.keys()].sort(compareCodePoints).map((term) => [term, byTerm.get(term)!] as const);
}

export function* rowsOf(byTerm: CellPostingsByTerm): Generator<CellPostingsRow> {
  for (const [term, rows] of byTerm) for (const [cell, blob] of rows) yield [term, cell, blob as Buffer];
}
