import { PlacePostingsRepo } from "../../places/store/place-postings.js";
import type { Migration } from "./migration.js";

/**
 * Category tags for the lead search (see `src/providers/places/place-tags.ts`).
 *
 * Why: a place's categories were only English labels ("dentist"), so "Zahnarzt",
 * "kahvila" or "ravintola" found nothing but names. Each place now keeps its category as
 * OSM tag terms (`places.category_tags`, space-separated: "amenity=dentist
 * healthcare=dentist"); the term index holds them as terms ("#amenity=dentist") and the
 * search turns a query word in any language into tags through the iD schema's vocabulary.
 *
 * The index's rows change meaning: `tf` now holds which fields hold the word (a bit per
 * field) and `words` facts about the place (bit 0: it has category tags), since ranking
 * no longer uses word counts and field lengths. The triggers pass `category_tags` to
 * `place_terms_of`; every row is rebuilt here and every cell repacked.
 *
 * Backfill: a migration has no vocabulary (it lives with the providers), so existing
 * places are listed in `place_category_backfill` and the places service gives them tags
 * from their labels and brand at startup (`PlacesImportService.backfillCategoryTags`),
 * the way contacts' n-grams are backfilled; a re-import gives OSM places their real tags.
 * Until then they match category words by name only.
 */
export const categoryTags: Migration = {
  name: "places: category tag terms in the term index, for category words in any language",
  up(db) {
    const terms = (row: string) =>
      `place_terms_of(${row}.lat, ${row}.lng, ${row}.name, ${row}.category_text, coalesce(${row}.cuisine, ''), coalesce(${row}.brand, ''), coalesce(${row}.description, ''), ${row}.category_tags)`;
    db.exec(`
      ALTER TABLE places ADD COLUMN category_tags TEXT NOT NULL DEFAULT '';

      DROP TRIGGER place_terms_ai;
      DROP TRIGGER place_terms_ad;
      DROP TRIGGER place_terms_au;
      CREATE TRIGGER place_terms_ai AFTER INSERT ON places BEGIN
        INSERT INTO place_terms (cell, term, place, lat, lng, tf, words)
          SELECT cell, term, new.id, new.lat, new.lng, tf, words FROM ${terms("new")};
      END;
      CREATE TRIGGER place_terms_ad AFTER DELETE ON places BEGIN
        DELETE FROM place_terms WHERE (cell, term, place) IN (SELECT cell, term, old.id FROM ${terms("old")});
      END;
      CREATE TRIGGER place_terms_au AFTER UPDATE OF lat, lng, name, category_text, cuisine, brand, description, category_tags ON places BEGIN
        DELETE FROM place_terms WHERE (cell, term, place) IN (SELECT cell, term, old.id FROM ${terms("old")});
        INSERT INTO place_terms (cell, term, place, lat, lng, tf, words)
          SELECT cell, term, new.id, new.lat, new.lng, tf, words FROM ${terms("new")};
      END;

      DELETE FROM place_postings;
      DELETE FROM place_terms;
      INSERT INTO place_terms (cell, term, place, lat, lng, tf, words)
        SELECT t.cell, t.term, p.id, p.lat, p.lng, t.tf, t.words FROM places p, ${terms("p")} t;

      CREATE TABLE place_category_backfill (
        place INTEGER PRIMARY KEY REFERENCES places(id) ON DELETE CASCADE
      ) STRICT;
      INSERT INTO place_category_backfill (place) SELECT id FROM places;
    `);
    new PlacePostingsRepo(db).refresh();
  },
};
