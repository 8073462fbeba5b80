import type { Db } from "./db.js";

export interface ContactOpenerRow {
  id: string;
  team_id: string;
  campaign_id: string;
  contact_id: string;
  opener_ct: string;
  key_id: string;
  source: "model" | "user";
  created_at: string;
  updated_at: string;
}

/** Openers per (campaign, contact) (migration 028-contact-openers); ciphertexts only, the service holds the key. */
export class ContactOpenersRepo {
  constructor(private readonly db: Db) {}

  /** Writes the opener of (campaign, contact), replacing one there; the row keeps its id and creation time. */
  upsert(row: ContactOpenerRow): void {
    this.db
      .prepare(
        `INSERT INTO contact_openers (id, team_id, campaign_id, contact_id, opener_ct, key_id, source, created_at, updated_at)
         VALUES (@id, @team_id, @campaign_id, @contact_id, @opener_ct, @key_id, @source, @created_at, @updated_at)
         ON CONFLICT (campaign_id, contact_id) DO UPDATE SET
           opener_ct = excluded.opener_ct, key_id = excluded.key_id, source = excluded.source, updated_at = excluded.updated_at`,
      )
      .run(row);
  }

  get(teamId: string, campaignId: string, contactId: string): ContactOpenerRow | undefined {
    return this.db
      .prepare("SELECT * FROM contact_openers WHERE team_id = ? AND campaign_id = ? AND contact_id = ?")
      .get(teamId, campaignId, contactId) as ContactOpenerRow | undefined;
  }

  page(teamId: string, campaignId: string, limit: number, offset: number): { rows: ContactOpenerRow[]; total: number } {
    const total = this.db.prepare("SELECT COUNT(*) FROM contact_openers WHERE team_id = ? AND campaign_id = ?").pluck().get(teamId, campaignId) as number;
    const rows = this.db
      .prepare("SELECT * FROM contact_openers WHERE team_id = ? AND campaign_id = ? ORDER BY created_at, contact_id LIMIT ? OFFSET ?")
      .all(teamId, campaignId, limit, offset) as ContactOpenerRow[];
    return { rows, total };
  }

  /** The ids among `contactIds` without an opener in the campaign, in their order. */
  missing(campaignId: string, contactIds: readonly string[]): string[] {
    const have = new Set(this.db.prepare("SELECT contact_id FROM contact_openers WHERE campaign_id = ?").pluck().all(campaignId) as string[]);
    return contactIds.filter((id) => !have.has(id));
  }
}
