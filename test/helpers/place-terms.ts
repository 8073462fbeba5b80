import { systemClock } from "../../src/core/clock.js";
import { PlacesImportService } from "../../src/places/import/places-import.js";
import { PlacePostingsRepo } from "../../src/places/store/place-postings.js";
import { decodePostings, indexCoordinate, POSTING_STRIDE } from "../../src/places/store/postings-codec.js";
import { termRowsOf } from "../../src/places/store/place-terms.js";
import { SEARCH_FIELDS } from "../../src/places/store/search-tokens.js";
import type { Db } from "../../src/store/db.js";

/** One posting as a row, with the column names of the dropped `place_terms` (`tf` = fields, `words` = flags). */
export type TermIndexRow = { cell: number; term: string; place: number; lat: number; lng: number; tf: number; words: number };
const byPlaceThenTerm = (a: TermIndexRow, b: TermIndexRow) => a.place - b.place || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);

/** The postings `places` should give: every place's term rows through the same function the index is built with, coordinates as stored. */
function expectedRows(db: Db): TermIndexRow[] {
  const places = db.prepare(`SELECT id, lat, lng, ${SEARCH_FIELDS.join(", ")}, category_tags FROM places`).raw(true).all() as Array<[number, number, number, ...Array<string | null>]>;
  return places.flatMap(([place, lat, lng, ...text]) =>
    termRowsOf(lat, lng, text.slice(0, SEARCH_FIELDS.length), text[SEARCH_FIELDS.length]).map((r) => ({
      cell: r.cell,
      term: r.term,
      place,
      lat: indexCoordinate(lat),
      lng: indexCoordinate(lng),
      tf: r.fields,
      words: r.flags,
    })),
  );
}

function unpacked(db: Db): TermIndexRow[] {
  const rows: TermIndexRow[] = [];
  for (const { cell, term, postings } of db.prepare("SELECT cell, term, postings FROM place_postings").all() as { cell: number; term: string; postings: Buffer }[]) {
    const v = decodePostings(postings);
    for (let i = 0; i < v.length; i += POSTING_STRIDE) rows.push({ cell, term, place: v[i]!, lat: v[i + 1]!, lng: v[i + 2]!, tf: v[i + 3]!, words: v[i + 4]! });
  }
  return rows;
}

/**
 * The term index as it is once its stale cells are rebuilt (this refreshes them), and as
 * it should be: recomputed from `places`. Equal when every write marked what it touched.
 */
export function termIndex(db: Db): { actual: TermIndexRow[]; expected: TermIndexRow[] } {
  new PlacePostingsRepo(db).refresh();
  return { actual: unpacked(db).sort(byPlaceThenTerm), expected: expectedRows(db).sort(byPlaceThenTerm) };
}

/**
 * The packed postings as they are (nothing refreshed), the rows `places` should give, both
 * ordered by place then term, and the cells waiting for a rebuild. `packed` equals `rows`
 * once nothing is stale.
 */
export function packedIndex(db: Db): { packed: TermIndexRow[]; rows: TermIndexRow[]; stale: number[] } {
  const stale = db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell").pluck().all() as number[];
  return { packed: unpacked(db).sort(byPlaceThenTerm), rows: expectedRows(db).sort(byPlaceThenTerm), stale };
}

/** What opening the instance does for the places index once migrations ran (`PlacesImportService.catchUp`), on a bare connection. */
export function catchUpPlaces(db: Db): void {
  new PlacesImportService({ db, clock: systemClock }).catchUp();
}

/** The rebuilds migrations left for opening the instance to do (`rebuildAtOpen`). */
export function rebuildsRequested(db: Db): string[] {
  const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'place_rebuilds'").get();
  return table ? (db.prepare("SELECT what FROM place_rebuilds ORDER BY what").pluck().all() as string[]) : [];
}
