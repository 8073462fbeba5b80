import { decodePostings, POSTING_STRIDE } from "../../src/store/place-postings.js";
import type { Db } from "../../src/store/db.js";

/**
 * The term index as it is, and as it should be: recomputed from `places` through the same
 * function the triggers use. Equal when every write kept it in sync.
 */
export function termIndex(db: Db): { actual: unknown[]; expected: unknown[] } {
  const actual = db.prepare("SELECT cell, term, place, lat, lng, tf, words FROM place_terms ORDER BY place, term").all();
  const expected = db
    .prepare(
      `SELECT t.cell, t.term, p.id AS place, p.lat, p.lng, t.tf, t.words
         FROM places p, place_terms_of(p.lat, p.lng, p.name, p.category_text, coalesce(p.cuisine, ''), coalesce(p.brand, ''), coalesce(p.description, ''), p.category_tags) t
        ORDER BY place, term`,
    )
    .all();
  return { actual, expected };
}

/** The same shape as `termIndex`'s rows, in one order. */
type TermIndexRow = { cell: number; term: string; place: number; lat: number; lng: number; tf: number; words: number };
const byPlaceThenTerm = (a: TermIndexRow, b: TermIndexRow) => a.place - b.place || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);

/**
 * The packed postings (migration 013) unpacked into `place_terms` rows, next to those
 * rows, both ordered by place then term; and the cells still waiting for a rebuild.
 * `packed` equals `rows` once nothing is stale.
 */
export function packedIndex(db: Db): { packed: TermIndexRow[]; rows: TermIndexRow[]; stale: number[] } {
  const packed: TermIndexRow[] = [];
  for (const { cell, term, postings } of db.prepare("SELECT cell, term, postings FROM place_postings").all() as { cell: number; term: string; postings: Buffer }[]) {
    const v = decodePostings(postings);
    for (let i = 0; i < v.length; i += POSTING_STRIDE) packed.push({ cell, term, place: v[i]!, lat: v[i + 1]!, lng: v[i + 2]!, tf: v[i + 3]!, words: v[i + 4]! });
  }
  const rows = db.prepare("SELECT cell, term, place, lat, lng, tf, words FROM place_terms").all() as TermIndexRow[];
  const stale = db.prepare("SELECT cell FROM place_cells_stale ORDER BY cell").pluck().all() as number[];
  return { packed: packed.sort(byPlaceThenTerm), rows: rows.sort(byPlaceThenTerm), stale };
}
