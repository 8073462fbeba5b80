import type { Db } from "./db.js";

export interface BrandSettingsRow {
  team_id: string;
  brand_name: string | null;
  brand_description: string | null;
  brand_email: string | null;
  website_url: string | null;
  email_language: string | null;
  logo_url: string | null;
  /** JSON object text. */
  design_system: string;
  postal_address: string | null;
  time_zone: string | null;
  updated_at: string;
}

export type BrandColumns = Omit<BrandSettingsRow, "team_id" | "updated_at">;

const COLUMNS: ReadonlyArray<keyof BrandColumns> = [
  "brand_name",
  "brand_description",
  "brand_email",
  "website_url",
  "email_language",
  "logo_url",
  "design_system",
  "postal_address",
  "time_zone",
];

export class BrandSettingsRepo {
  constructor(private readonly db: Db) {}

  forTeam(teamId: string): BrandSettingsRow | undefined {
    return this.db.prepare("SELECT * FROM brand_settings WHERE team_id = ?").get(teamId) as BrandSettingsRow | undefined;
  }

  /**
   * Write only the given columns, in one statement (insert or update): two partial
   * updates at once each keep the other's fields.
   */
  upsert(teamId: string, changes: Partial<Record<keyof BrandColumns, string | null>>, now: string): BrandSettingsRow {
    const given = COLUMNS.filter((c) => changes[c] !== undefined);
    const insertCols = ["team_id", "updated_at", ...given];
    const values = [teamId, now, ...given.map((c) => changes[c])];
    const updates = ["updated_at = excluded.updated_at", ...given.map((c) => `${c} = excluded.${c}`)];
    return this.db
      .prepare(
        `INSERT INTO brand_settings (${insertCols.join(", ")}) VALUES (${insertCols.map(() => "?").join(", ")})
         ON CONFLICT (team_id) DO UPDATE SET ${updates.join(", ")} RETURNING *`,
      )
      .get(...values) as BrandSettingsRow;
  }
}
