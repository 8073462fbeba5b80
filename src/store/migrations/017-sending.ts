import type { Migration } from "./migration.js";
import { widenCheck } from "./widen-check.js";

/**
 * Sending (docs/api.md, "Sending"; docs/architecture.md, "Delivery"):
 *
 * - contacts gain the status `bounced`; campaigns their Markdown body, sending domain,
 *   launch time and audience, and one-time campaigns the status `sending`.
 * - executions gain the delivery state machine's statuses (`sending`: the relay may have the
 *   message; `bounced`, `skipped`) and columns: when a pending one may go next, attempts,
 *   who claimed it, the relay's answer, Message-ID, whether a crash left it unconfirmed.
 * - `delivery_attempts`: one row per message handed to the relay, for the per-minute
 *   throttles and the daily cap (kept two days). The recipient's domain is a keyed hash:
 *   contacts' emails are encrypted, their domains should not sit beside them in clear.
 * - `delivery_lock`: one delivery loop per data directory (its holder's pid and heartbeat).
 * - `email_suppressions`: addresses that unsubscribed or bounced, per workspace, kept when
 *   the contact is deleted, so a re-import is never mailed (blind index + encrypted email,
 *   re-keyed by the key rotation like contacts).
 * - `bounce_reports`: every delivery status notification received for a VERP address.
 * - `instance_secrets`: secrets of the data directory that must outlive a master-key
 *   rotation (the unsubscribe-token key: links in sent mail never expire), encrypted.
 * - brand settings gain `postal_address`; plans a daily send cap (NULL: unlimited).
 */
export const sending: Migration = {
  name: "sending: campaign content, delivery state machine, throttles, suppressions, bounces",
  up(db) {
    widenCheck(db, "contacts", "CHECK (status IN ('active', 'unsubscribed'))", "CHECK (status IN ('active', 'unsubscribed', 'bounced'))");
    widenCheck(
      db,
      "campaigns",
      "(type = 'one-time' AND status IN ('draft', 'scheduled', 'sent'))",
      "(type = 'one-time' AND status IN ('draft', 'scheduled', 'sending', 'sent'))",
    );
    widenCheck(
      db,
      "campaign_executions",
      "CHECK (status IN ('pending', 'queued', 'sent', 'cancelled', 'failed'))",
      "CHECK (status IN ('pending', 'queued', 'sending', 'sent', 'cancelled', 'failed', 'bounced', 'skipped'))",
    );
    db.exec(`
      ALTER TABLE campaigns ADD COLUMN body_markdown TEXT NOT NULL DEFAULT '';
      ALTER TABLE campaigns ADD COLUMN sending_domain_id TEXT REFERENCES sending_domains(id) ON DELETE SET NULL;
      ALTER TABLE campaigns ADD COLUMN launched_at TEXT;
      -- JSON {tags, statuses} of the launch.
      ALTER TABLE campaigns ADD COLUMN audience TEXT;

      ALTER TABLE campaign_executions ADD COLUMN not_before TEXT;
      ALTER TABLE campaign_executions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE campaign_executions ADD COLUMN first_attempt_at TEXT;
      ALTER TABLE campaign_executions ADD COLUMN claimed_by TEXT;
      ALTER TABLE campaign_executions ADD COLUMN message_id TEXT;
      ALTER TABLE campaign_executions ADD COLUMN sent_at TEXT;
      ALTER TABLE campaign_executions ADD COLUMN error TEXT;
      ALTER TABLE campaign_executions ADD COLUMN unconfirmed INTEGER NOT NULL DEFAULT 0;
      -- 1 while not_before was pushed by a per-minute throttle (due now, waiting its turn),
      -- 0 when it waits for a retry, a scheduled time or the next day's cap.
      ALTER TABLE campaign_executions ADD COLUMN throttled INTEGER NOT NULL DEFAULT 0;
      -- Executions queued before this release become due now.
      UPDATE campaign_executions SET status = 'pending', not_before = updated_at WHERE status = 'queued';
      -- The delivery loop's scan: only pending rows, by due time. Partial, so sent and
      -- cancelled rows (the bulk of a table over time) are not in it.
      CREATE INDEX campaign_executions_due ON campaign_executions(not_before, id) WHERE status = 'pending';
      -- Recovery after a crash looks at the claimed ones only.
      CREATE INDEX campaign_executions_in_flight ON campaign_executions(claimed_by) WHERE status IN ('queued', 'sending');
      CREATE INDEX campaign_executions_by_campaign_status ON campaign_executions(campaign_id, status);

      CREATE TABLE delivery_attempts (
        id INTEGER PRIMARY KEY,
        execution_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        sending_domain_id TEXT NOT NULL,
        recipient_domain_key TEXT NOT NULL,
        at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX delivery_attempts_by_domain ON delivery_attempts(sending_domain_id, at);
      CREATE INDEX delivery_attempts_by_recipient ON delivery_attempts(sending_domain_id, recipient_domain_key, at);
      CREATE INDEX delivery_attempts_by_team ON delivery_attempts(team_id, at);

      CREATE TABLE delivery_lock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE email_suppressions (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        email_bidx TEXT NOT NULL,
        email_ct TEXT NOT NULL,
        key_id TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('unsubscribed', 'bounced')),
        created_at TEXT NOT NULL,
        UNIQUE (team_id, email_bidx)
      ) STRICT;
      CREATE INDEX email_suppressions_by_key ON email_suppressions(key_id);

      CREATE TABLE bounce_reports (
        id INTEGER PRIMARY KEY,
        execution_id TEXT NOT NULL REFERENCES campaign_executions(id) ON DELETE CASCADE,
        status_code TEXT NOT NULL,
        permanent INTEGER NOT NULL CHECK (permanent IN (0, 1)),
        diagnostic TEXT,
        received_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX bounce_reports_by_execution ON bounce_reports(execution_id);

      CREATE TABLE instance_secrets (
        name TEXT PRIMARY KEY,
        value_ct TEXT NOT NULL,
        key_id TEXT NOT NULL
      ) STRICT;

      ALTER TABLE brand_settings ADD COLUMN postal_address TEXT;

      ALTER TABLE plans ADD COLUMN daily_sends INTEGER;
      UPDATE plans SET daily_sends = 100 WHERE name = 'free';
      UPDATE plans SET daily_sends = 5000 WHERE name = 'pro';
    `);
  },
};
