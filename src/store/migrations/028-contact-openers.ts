import type { Migration } from "./migration.js";

/**
 * AI openers (docs/api.md, "AI drafts"): one sentence per (campaign, contact), written by
 * the model from that contact's facts or by the user, rendered as `{{ contact.opener }}`.
 * It is made of the contact's data, so it is stored like the contact's: encrypted
 * (`opener_ct`, AAD bound to workspace, campaign and contact) and re-keyed by the key
 * rotation. `source` says whether the model wrote it or a user edited it.
 */
export const contactOpeners: Migration = {
  name: "contact openers: one encrypted sentence per campaign and contact",
  up(db) {
    db.exec(`
      CREATE TABLE contact_openers (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        opener_ct TEXT NOT NULL,
        key_id TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('model', 'user')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (campaign_id, contact_id)
      );
      CREATE INDEX contact_openers_contact ON contact_openers (contact_id);
    `);
  },
};
