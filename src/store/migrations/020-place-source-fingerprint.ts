import type { Migration } from "./migration.js";

/**
 * `place_sources.fingerprint`: what the last complete import of a source read (the file's
 * SHA-256, the --bbox, the rules and vocabulary it was mapped with; see
 * `src/places/import/places-import.ts`). Re-importing a file with the same fingerprint has
 * nothing to change, so it is not read again: a country's unchanged extract costs a hash
 * instead of a full import. Cleared when an import starts, so a killed one never matches.
 */
export const placeSourceFingerprint: Migration = {
  name: "places: fingerprint of each source's last complete import",
  up(db) {
    db.exec("ALTER TABLE place_sources ADD COLUMN fingerprint TEXT");
  },
};
