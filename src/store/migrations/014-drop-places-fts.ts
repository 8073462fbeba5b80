import type { Migration } from "./migration.js";

/**
 * Drops `places_fts` (migration 002) and the half of the `places` triggers that kept it.
 *
 * Why: since the lead search reads the term index (migrations 011, 013), nothing searched
 * the full-text index; it was only counted by `places stats`, yet every place write paid
 * for it (bench/import.js measured about a third of an import's write time). The R*Tree
 * keeps its triggers (the search's polar fallback reads it); its update trigger now fires
 * only when the point moves.
 */
export const dropPlacesFts: Migration = {
  name: "places: drop the unused full-text index",
  up(db) {
    db.exec(`
      DROP TRIGGER places_ai;
      DROP TRIGGER places_ad;
      DROP TRIGGER places_au;
      DROP TABLE places_fts;

      CREATE TRIGGER places_rtree_ai AFTER INSERT ON places BEGIN
        INSERT INTO places_rtree (id, min_lat, max_lat, min_lng, max_lng) VALUES (new.id, new.lat, new.lat, new.lng, new.lng);
      END;
      CREATE TRIGGER places_rtree_ad AFTER DELETE ON places BEGIN
        DELETE FROM places_rtree WHERE id = old.id;
      END;
      CREATE TRIGGER places_rtree_au AFTER UPDATE OF lat, lng ON places BEGIN
        UPDATE places_rtree SET min_lat = new.lat, max_lat = new.lat, min_lng = new.lng, max_lng = new.lng WHERE id = new.id;
      END;
    `);
  },
};
