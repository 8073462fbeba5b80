import { cellSql } from "../../core/geo-grid.js";
import { PlaceLabelWords } from "../place-label-words.js";
import type { Migration } from "./migration.js";

/**
 * The words of places' labels, index-wide (`place-label-words.ts`): a plain-name query
 * ("Müller") whose word no place has as a label can score at best a name match, so a search
 * of a large circle stops once enough places score that near the centre, instead of reading
 * the whole circle (issue 27, item 7). Filled here from every labelled place; the postings'
 * chunk writer adds the words of the cells it packs, found through the partial index of the
 * labelled places by cell (few rows: most places' labels are all said by their tags).
 */
export const placeLabelWords: Migration = {
  name: "places: the words of their labels, index-wide, and labelled places by cell",
  up(db) {
    db.exec(`
      CREATE TABLE place_label_words (word TEXT PRIMARY KEY) WITHOUT ROWID;
      CREATE INDEX places_labelled_by_cell ON places (${cellSql("lat", "lng")}) WHERE category_text <> '';
    `);
    PlaceLabelWords.of(db)!.addFromEveryPlace();
  },
};
