import type { ContactRow } from "./contacts.js";
import { StatementCache, type Db } from "./db.js";

/** A sent execution a message may answer, with what matching and recording need. */
export interface ReplyTarget {
  id: string;
  team_id: string;
  campaign_id: string;
  contact_id: string;
  step: number;
  status: string;
  sent_at: string | null;
  message_id: string | null;
}

export interface ReplyRow {
  id: string;
  team_id: string;
  campaign_id: string;
  execution_id: string;
  contact_id: string;
  step: number;
  from_ct: string;
  subject_ct: string;
  snippet_ct: string;
  key_id: string;
  auto_reply: 0 | 1;
  matched_by: "headers" | "subject";
  message_id: string | null;
  mailbox_key: string;
  uid_validity: string;
  uid: number;
  received_at: string;
  created_at: string;
}

const TARGET_COLUMNS = "id, team_id, campaign_id, contact_id, step, status, sent_at, message_id";

/** The SQL of reply detection: cursors per mailbox and UIDVALIDITY, and replies (the watcher's lock: `ProcessLockRows`). */
export class RepliesRepo {
  /** Kept prepared: a first sync runs several of these per reply (preparing was ~8% of its CPU). */
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  /** The last UID read in this mailbox at this UIDVALIDITY (0: none yet). */
  lastUid(mailboxKey: string, uidValidity: string): number {
    const row = this.statements.get("SELECT last_uid FROM mailbox_cursors WHERE mailbox_key = ? AND uid_validity = ?").get(mailboxKey, uidValidity) as { last_uid: number } | undefined;
    return row?.last_uid ?? 0;
  }

  /** Move the cursor forward (never back: another process may have gone further). */
  advance(mailboxKey: string, uidValidity: string, uid: number, now: string): void {
    this.statements
      .get(
        `INSERT INTO mailbox_cursors (mailbox_key, uid_validity, last_uid, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (mailbox_key, uid_validity) DO UPDATE SET last_uid = MAX(last_uid, excluded.last_uid), updated_at = excluded.updated_at`,
      )
      .run(mailboxKey, uidValidity, uid, now);
  }

  /** A sent execution by its Message-ID (`<exe_…@domain>`). */
  executionByMessageId(messageId: string): ReplyTarget | undefined {
    return this.statements.get(`SELECT ${TARGET_COLUMNS} FROM campaign_executions WHERE message_id = ? LIMIT 1`).get(messageId) as ReplyTarget | undefined;
  }

  /** Workspaces that sent anything since `since` (the fallback match looks a sender up in each). */
  teamsSentSince(since: string): string[] {
    return this.db.prepare("SELECT DISTINCT team_id FROM campaign_executions WHERE status = 'sent' AND sent_at >= ?").pluck().all(since) as string[];
  }

  /** A contact's sent executions since `since`, newest first. */
  sentToContactSince(contactId: string, since: string): ReplyTarget[] {
    return this.statements
      .get(`SELECT ${TARGET_COLUMNS} FROM campaign_executions WHERE contact_id = ? AND status = 'sent' AND sent_at >= ? ORDER BY sent_at DESC, step DESC`)
      .all(contactId, since) as ReplyTarget[];
  }

  /** Step 0 of a contact in a campaign (a follow-up without a subject replies to its thread). */
  stepZero(campaignId: string, contactId: string): ReplyTarget | undefined {
    return this.statements.get(`SELECT ${TARGET_COLUMNS} FROM campaign_executions WHERE campaign_id = ? AND contact_id = ? AND step = 0`).get(campaignId, contactId) as
      | ReplyTarget
      | undefined;
  }

  /** The From addresses of every sending domain: mail from them is ours, never a reply. */
  senderAddresses(): string[] {
    return this.db.prepare("SELECT DISTINCT lower(sender_email) FROM sending_domains").pluck().all() as string[];
  }

  /**
   * Whether this message (by Message-ID) was already recorded for this execution: after a
   * UIDVALIDITY change the mailbox is read again from its first UID, and a reply read
   * under the old UIDVALIDITY must not count again.
   */
  recordedMessage(executionId: string, messageId: string): boolean {
    return this.statements.get("SELECT 1 FROM campaign_replies WHERE execution_id = ? AND message_id = ?").get(executionId, messageId) !== undefined;
  }

  insert(row: ReplyRow): boolean {
    return (
      this.statements
        .get(
          `INSERT INTO campaign_replies (id, team_id, campaign_id, execution_id, contact_id, step, from_ct, subject_ct, snippet_ct, key_id, auto_reply, matched_by,
             message_id, mailbox_key, uid_validity, uid, received_at, created_at)
           VALUES (@id, @team_id, @campaign_id, @execution_id, @contact_id, @step, @from_ct, @subject_ct, @snippet_ct, @key_id, @auto_reply, @matched_by,
             @message_id, @mailbox_key, @uid_validity, @uid, @received_at, @created_at)
           ON CONFLICT (mailbox_key, uid_validity, uid) DO NOTHING`,
        )
        .run(row).changes === 1
    );
  }

  /** The first reply wins: `repliedAt` is when the contact first answered this step. */
  markReplied(executionId: string, at: string, now: string): void {
    this.statements.get("UPDATE campaign_executions SET replied_at = COALESCE(replied_at, ?), updated_at = ? WHERE id = ?").run(at, now, executionId);
  }

  /** active → replied; a bounced or unsubscribed contact keeps that status (it says more). */
  markContactReplied(contactId: string, now: string): void {
    this.statements.get("UPDATE contacts SET status = 'replied', updated_at = ? WHERE id = ? AND status = 'active'").run(now, contactId);
  }

  campaignStopRules(campaignId: string): { stop_scope: "contact" | "domain"; stop_on_auto_reply: 0 | 1 } | undefined {
    return this.statements.get("SELECT stop_scope, stop_on_auto_reply FROM campaigns WHERE id = ?").get(campaignId) as
      | { stop_scope: "contact" | "domain"; stop_on_auto_reply: 0 | 1 }
      | undefined;
  }

  /** The contacts a campaign has executions for (the domain stop reads their emails). */
  campaignContacts(campaignId: string): ContactRow[] {
    return this.db.prepare("SELECT * FROM contacts WHERE id IN (SELECT DISTINCT contact_id FROM campaign_executions WHERE campaign_id = ?)").all(campaignId) as ContactRow[];
  }

  list(campaignId: string, limit: number, offset: number): { rows: ReplyRow[]; total: number } {
    const total = (this.db.prepare("SELECT COUNT(*) FROM campaign_replies WHERE campaign_id = ?").pluck().get(campaignId) as number) ?? 0;
    const rows = this.db
      .prepare("SELECT * FROM campaign_replies WHERE campaign_id = ? ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?")
      .all(campaignId, limit, offset) as ReplyRow[];
    return { rows, total };
  }
}
