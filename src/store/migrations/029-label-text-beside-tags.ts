import type { Migration } from "./migration.js";
import { rebuildAtOpen } from "./rebuild-at-open.js";

/**
 * `places.category_text` holds the labels a place's category tags do not say (issue 28:
 * a CSV's "key account" beside "bakery" was found by nothing, since the index left out the
 * labels of every place with tags). The index now reads `category_text` of every place, so
 * places written before hold only that: what a tagged place's tags say is cleared here (a
 * list's labels that gave no tag come back with its next import). The update marks the
 * cells stale through the places trigger and opening the instance rebuilds them: the
 * postings an older migration built with today's code must not keep those words.
 */
export const labelTextBesideTags: Migration = {
  name: "category_text: only the labels the category tags do not say",
  up(db) {
    db.exec(`UPDATE places SET category_text = '' WHERE category_tags <> '' AND category_text <> ''`);
    rebuildAtOpen(db, "postings");
  },
};
