import type { Migration } from "./migration.js";

/** One row of brand settings per workspace; absent row = nothing set yet. */
export const brandSettings: Migration = {
  name: "brand settings",
  up(db) {
    db.exec(`
      CREATE TABLE brand_settings (
        team_id TEXT PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
        brand_name TEXT,
        brand_description TEXT,
        brand_email TEXT,
        website_url TEXT,
        email_language TEXT,
        logo_url TEXT,
        design_system TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(design_system) AND json_type(design_system) = 'object'),
        updated_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
