import type { Migration } from "./migration.js";

/**
 * Campaigns and their executions.
 *
 * - The status CHECK ties statuses to the type: lifetime campaigns live in draft, active,
 *   paused, archived; one-time campaigns in draft, scheduled, sent (docs/api.md, "Campaigns").
 * - `campaign_executions` is unique per (campaign, contact, step): whatever pauses and
 *   resumes happen, a contact can be queued for one step of a campaign only once, so
 *   nothing can be sent twice (the re-send bug class of mailing-list servers that queue by status alone).
 */
export const campaigns: Migration = {
  name: "campaigns and campaign executions",
  up(db) {
    db.exec(`
      CREATE TABLE campaigns (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('one-time', 'lifetime')),
        status TEXT NOT NULL,
        subject TEXT NOT NULL,
        scheduled_at TEXT,
        sent_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        CHECK (
          (type = 'lifetime' AND status IN ('draft', 'active', 'paused', 'archived')) OR
          (type = 'one-time' AND status IN ('draft', 'scheduled', 'sent'))
        )
      ) STRICT;
      -- Newest first, stable: created_at then id.
      CREATE INDEX campaigns_by_team_created ON campaigns(team_id, created_at DESC, id DESC);

      CREATE TABLE campaign_executions (
        id TEXT PRIMARY KEY,
        campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        step INTEGER NOT NULL DEFAULT 0 CHECK (step >= 0),
        status TEXT NOT NULL CHECK (status IN ('pending', 'queued', 'sent', 'cancelled', 'failed')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (campaign_id, contact_id, step)
      ) STRICT;
      -- Cancelling on pause/archive finds a campaign's rows through the UNIQUE index above
      -- (campaign_id first). No index holds status: a pause rewrites the status of every open
      -- row, and an index on it would be rewritten too (measured: bench/campaign-pause.js).
      CREATE INDEX campaign_executions_by_campaign_created ON campaign_executions(campaign_id, created_at DESC, id DESC);
      CREATE INDEX campaign_executions_by_contact ON campaign_executions(contact_id);
    `);
  },
};
