import type { Migration } from "./migration.js";
import { placeCellSql } from "./place-cell-sql.js";
import { rebuildAtOpen } from "./rebuild-at-open.js";

/**
 * The words of places' labels, index-wide (`place-label-words.ts`): a plain-name query
 * ("Müller") whose word no place has as a label can score at best a name match, so a search
 * of a large circle stops once enough places score that near the centre, instead of reading
 * the whole circle (issue 27, item 7). Filled from every labelled place when the instance opens (`rebuildAtOpen`: a migration
 * stands alone); the postings'
 * chunk writer adds the words of the cells it packs, found through the partial index of the
 * labelled places by cell (few rows: most places' labels are all said by their tags).
 */
export const placeLabelWords: Migration = {
  name: "places: the words of their labels, index-wide, and labelled places by cell",
  up(db) {
    db.exec(`
      CREATE TABLE place_label_words (word TEXT PRIMARY KEY) WITHOUT ROWID;
      CREATE INDEX places_labelled_by_cell ON places (${placeCellSql("")}) WHERE category_text <> '';
    `);
    rebuildAtOpen(db, "label-words");
  },
};
