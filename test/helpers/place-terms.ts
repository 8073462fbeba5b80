import { decodePostings, indexCoordinate, PlacePostingsRepo, POSTING_STRIDE } from "../../src/places/store/place-postings.js";
import type { Db } from "../../src/store/db.js";

/** One posting as a row: the shape `place_terms_of` gives (`tf` = fields, `words` = flags). */
export type TermIndexRow = { cell: number; term: string; place: number; lat: number; lng: number; tf: number; words: number };
const byPlaceThenTerm = (a: TermIndexRow, b: TermIndexRow) => a.place - b.place || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);

/** The postings `places` should give: every place's term rows through the same function the index is built with, coordinates as stored. */
function expectedRows(db: Db): TermIndexRow[] {
  const rows = db
    .prepare(
      `SELECT t.cell, t.term, p.id AS place, p.lat, p.lng, t.tf, t.words
         FROM places p, place_terms_of(p.lat, p.lng, p.name, p.category_text, coalesce(p.cuisine, ''), coalesce(p.brand, ''), coalesce(p.description, ''), p.category_tags) t`,
    )
    .all() as TermIndexRow[];
  return rows.map((r) => ({ ...r, lat: indexCoordinate(r.lat), lng: indexCoordinate(r.lng) }));
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
