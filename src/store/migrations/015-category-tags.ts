import type { Migration } from "./migration.js";
import { rebuildAtOpen } from "./rebuild-at-open.js";

/**
 * Category tags for the lead search (see `src/places/vocabulary/place-tags.ts`).
 *
 * Why: a place's categories were only English labels ("dentist"), so "Zahnarzt",
 * "kahvila" or "ravintola" found nothing but names. Each place now keeps its category as
 * OSM tag terms (`places.category_tags`, space-separated: "amenity=dentist
 * healthcare=dentist"); the term index holds them as terms ("#amenity=dentist") and the
 * search turns a query word in any language into tags through the iD schema's vocabulary.
 *
 * The index's postings change meaning (`fields` says which fields hold the word, `flags`
 * facts about the place), so every cell of it is marked stale and its postings dropped;
 * opening the instance rebuilds them from the places (`rebuildAtOpen`). The triggers that
 * kept `place_terms` (migration 011's first form) go: migration 019 drops the table, and
 * nothing writes places until then.
 *
 * Backfill: a migration has no vocabulary (it lives with the places engine), so existing
 * places are listed in `place_category_backfill` and opening the instance gives them tags
 * from their labels and brand (`PlacesImportService.catchUp`), the way contacts' n-grams
 * are backfilled; a re-import gives OSM places their real tags. Until then they match
 * category words by name only.
 */
export const categoryTags: Migration = {
  name: "places: category tag terms in the term index, for category words in any language",
  up(db) {
    db.exec(`
      DROP TRIGGER IF EXISTS place_terms_ai;
      DROP TRIGGER IF EXISTS place_terms_ad;
      DROP TRIGGER IF EXISTS place_terms_au;
      ALTER TABLE places ADD COLUMN category_tags TEXT NOT NULL DEFAULT '';

      INSERT OR IGNORE INTO place_cells_stale (cell) SELECT DISTINCT cell FROM place_terms;
      DELETE FROM place_terms;
      DELETE FROM place_postings;

      CREATE TABLE place_category_backfill (
        place INTEGER PRIMARY KEY REFERENCES places(id) ON DELETE CASCADE
      ) STRICT;
      INSERT INTO place_category_backfill (place) SELECT id FROM places;
    `);
    rebuildAtOpen(db, "postings");
  },
};
