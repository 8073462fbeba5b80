import type { Migration } from "./migration.js";
import { widenCheck } from "./widen-check.js";

/**
 * Sequences and replies (docs/api.md, "Sequences and replies"):
 *
 * - campaigns gain their follow-up steps (JSON `[{delay, subject, bodyMarkdown}]`, step 0 is
 *   the campaign's own subject and body), an optional send window (JSON), the stop scope
 *   of a reply and whether an auto-reply stops the sequence; one-time campaigns the status
 *   `cancelled`.
 * - executions gain `replied_at` (the step's contact replied to it).
 * - contacts gain the status `replied` and a time zone (IANA, for send windows); brand
 *   settings the workspace's default time zone.
 * - `sequence_stops`: one row per (campaign, contact) whose later steps must never be
 *   created (a reply, a bounce, an unsubscribe, a stop by the domain of a reply). The row is
 *   written in the same transaction that skips the open steps, and the step n+1 is created
 *   only when no row exists, so a step that was in flight during the stop (already `sending`)
 *   does not grow a successor.
 * - `campaign_replies`: the replies (and auto-replies) read from the mailbox, matched to an
 *   execution. Sender, subject and snippet are the contact's correspondence: encrypted like
 *   contacts' emails, re-keyed by the key rotation. One row per mailbox message (mailbox key,
 *   UIDVALIDITY, UID), so a second sync or process counts nothing twice.
 * - `mailbox_cursors`: the last UID read per mailbox and UIDVALIDITY.
 * - `mailbox_watch_lock`: one mailbox watcher per data directory (holder and heartbeat, as
 *   `delivery_lock`).
 */
export const sequences: Migration = {
  name: "sequences: follow-up steps, send windows, stop rules, replies, mailbox cursors",
  up(db) {
    widenCheck(
      db,
      "contacts",
      "CHECK (status IN ('active', 'unsubscribed', 'bounced'))",
      "CHECK (status IN ('active', 'unsubscribed', 'bounced', 'replied'))",
    );
    widenCheck(
      db,
      "campaigns",
      "(type = 'one-time' AND status IN ('draft', 'scheduled', 'sending', 'sent'))",
      "(type = 'one-time' AND status IN ('draft', 'scheduled', 'sending', 'sent', 'cancelled'))",
    );
    db.exec(`
      ALTER TABLE campaigns ADD COLUMN follow_ups TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(follow_ups) AND json_type(follow_ups) = 'array');
      ALTER TABLE campaigns ADD COLUMN send_window TEXT CHECK (send_window IS NULL OR json_valid(send_window));
      ALTER TABLE campaigns ADD COLUMN stop_scope TEXT NOT NULL DEFAULT 'contact' CHECK (stop_scope IN ('contact', 'domain'));
      ALTER TABLE campaigns ADD COLUMN stop_on_auto_reply INTEGER NOT NULL DEFAULT 0 CHECK (stop_on_auto_reply IN (0, 1));

      ALTER TABLE campaign_executions ADD COLUMN replied_at TEXT;
      -- Threading and the fallback match look up a sent execution by its Message-ID.
      CREATE INDEX campaign_executions_by_message_id ON campaign_executions(message_id) WHERE message_id IS NOT NULL;

      ALTER TABLE contacts ADD COLUMN time_zone TEXT;
      ALTER TABLE brand_settings ADD COLUMN time_zone TEXT;

      CREATE TABLE sequence_stops (
        campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (campaign_id, contact_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX sequence_stops_by_contact ON sequence_stops(contact_id);

      CREATE TABLE campaign_replies (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        execution_id TEXT NOT NULL REFERENCES campaign_executions(id) ON DELETE CASCADE,
        contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        from_ct TEXT NOT NULL,
        subject_ct TEXT NOT NULL,
        snippet_ct TEXT NOT NULL,
        key_id TEXT NOT NULL,
        auto_reply INTEGER NOT NULL CHECK (auto_reply IN (0, 1)),
        matched_by TEXT NOT NULL CHECK (matched_by IN ('headers', 'subject')),
        message_id TEXT,
        mailbox_key TEXT NOT NULL,
        uid_validity TEXT NOT NULL,
        uid INTEGER NOT NULL,
        received_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (mailbox_key, uid_validity, uid)
      ) STRICT;
      CREATE INDEX campaign_replies_by_campaign ON campaign_replies(campaign_id, received_at DESC, id DESC);
      CREATE INDEX campaign_replies_by_key ON campaign_replies(key_id);

      CREATE TABLE mailbox_cursors (
        mailbox_key TEXT NOT NULL,
        uid_validity TEXT NOT NULL,
        last_uid INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (mailbox_key, uid_validity)
      ) STRICT;

      CREATE TABLE mailbox_watch_lock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
