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
         FROM places p, place_terms_of(p.lat, p.lng, p.name, p.category_text, coalesce(p.cuisine, ''), coalesce(p.brand, ''), coalesce(p.description, '')) t
        ORDER BY place, term`,
    )
    .all();
  return { actual, expected };
}
