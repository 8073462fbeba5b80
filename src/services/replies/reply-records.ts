import type { Clock } from "../../core/clock.js";
import type { Keyring } from "../../core/crypto.js";
import { notFound } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { CampaignReply, ListRepliesQuery } from "../../core/schemas/campaign-reply.js";
import type { Principal } from "../access/auth.js";
import type { Db } from "../../store/db.js";
import { RepliesRepo, type ReplyRow, type ReplyTarget } from "../../store/replies.js";
import { stopSequences, stopSequencesOfContact } from "../../store/sequence-stops.js";
import type { ContactService } from "../contacts/contacts.js";
import type { EncryptedColumnSet } from "../key-rotation.js";
import { isFreemailDomain } from "./reply-matching.js";
import { domainOf } from "./reply-text.js";

const REPLY_FIELDS = { from_ct: "from", subject_ct: "subject", snippet_ct: "snippet" } as const;

/** Associated data of a reply's field: a ciphertext moved to another workspace, row or column fails. */
function replyAad(teamId: string, id: string, field: string): string {
  return `campaign_replies/${teamId}/${id}/${field}`;
}

/** One reply to record: where it is in the mailbox and what it says. */
export interface IncomingReply {
  target: ReplyTarget;
  matchedBy: "headers" | "subject";
  autoReply: boolean;
  from: string;
  subject: string;
  snippet: string;
  messageId: string | null;
  receivedAt: string;
  mailbox: { key: string; uidValidity: string; uid: number };
}

export type RecordOutcome = "recorded" | "duplicate";

/**
 * Replies as facts: the row (sender, subject and snippet encrypted like contacts' emails),
 * the execution's `repliedAt`, the contact's status `replied` and the stop of its sequence
 * (with `stopScope: domain`, of every contact of the campaign at its email domain, free-mail
 * domains excepted) are written in one transaction by `record`, which the sync calls inside
 * the transaction that also moves the mailbox cursor.
 */
export class ReplyRecords {
  private readonly repo: RepliesRepo;

  constructor(private readonly deps: { db: Db; clock: Clock; keys: { get(): Keyring }; contacts: ContactService }) {
    this.repo = new RepliesRepo(deps.db);
  }

  /**
   * The contacts a reply stops besides its own (`stopScope: domain`): those of the campaign
   * whose email is at the replying contact's domain. Decrypts the campaign's contacts: call
   * before the write transaction.
   */
  domainPeers(target: ReplyTarget): string[] {
    const rules = this.repo.campaignStopRules(target.campaign_id);
    if (rules?.stop_scope !== "domain") return [];
    const rows = this.repo.campaignContacts(target.campaign_id);
    const own = rows.find((r) => r.id === target.contact_id);
    if (!own) return [];
    const domain = domainOf(this.deps.contacts.emailOf(own));
    if (isFreemailDomain(domain)) return [];
    return rows.filter((r) => r.id !== own.id && domainOf(this.deps.contacts.emailOf(r)) === domain).map((r) => r.id);
  }

  /** Call inside a transaction. A message already recorded (same mailbox, UIDVALIDITY, UID) changes nothing. */
  record(reply: IncomingReply, domainPeers: readonly string[]): RecordOutcome {
    const { target } = reply;
    if (reply.messageId && this.repo.recordedMessage(target.id, reply.messageId)) return "duplicate";
    const now = this.deps.clock.now().toISOString();
    const keyring = this.deps.keys.get();
    const id = newId("rpl");
    const seal = (value: string, field: string) => keyring.encrypt(value, replyAad(target.team_id, id, field));
    const row: ReplyRow = {
      id,
      team_id: target.team_id,
      campaign_id: target.campaign_id,
      execution_id: target.id,
      contact_id: target.contact_id,
      step: target.step,
      from_ct: seal(reply.from, "from"),
      subject_ct: seal(reply.subject, "subject"),
      snippet_ct: seal(reply.snippet, "snippet"),
      key_id: keyring.currentId,
      auto_reply: reply.autoReply ? 1 : 0,
      matched_by: reply.matchedBy,
      message_id: reply.messageId,
      mailbox_key: reply.mailbox.key,
      uid_validity: reply.mailbox.uidValidity,
      uid: reply.mailbox.uid,
      received_at: reply.receivedAt,
      created_at: now,
    };
    if (!this.repo.insert(row)) return "duplicate";
    const rules = this.repo.campaignStopRules(target.campaign_id);
    if (reply.autoReply) {
      // An out-of-office is not an answer: it stops the sequence only when the campaign says so.
      if (rules?.stop_on_auto_reply === 1) stopSequences(this.deps.db, target.campaign_id, [target.contact_id], "auto-replied", now);
      return "recorded";
    }
    this.repo.markReplied(target.id, reply.receivedAt, now);
    this.repo.markContactReplied(target.contact_id, now);
    stopSequences(this.deps.db, target.campaign_id, [target.contact_id], "replied", now);
    // Someone who answered gets no more automated mail from any campaign already under way:
    // the conversation is a person's now (a later launch may name `replied` on purpose).
    stopSequencesOfContact(this.deps.db, target.contact_id, "replied", now);
    if (domainPeers.length) stopSequences(this.deps.db, target.campaign_id, domainPeers, "replied-domain", now);
    return "recorded";
  }

  /** `GET /api/v1/campaigns/{id}/replies`: newest first, decrypted. */
  list(principal: Principal, campaignId: string, query: ListRepliesQuery) {
    const campaign = this.deps.db.prepare("SELECT id FROM campaigns WHERE id = ? AND team_id = ?").get(campaignId, principal.teamId);
    // Unknown and another workspace's campaign look the same: no existence oracle.
    if (!campaign) throw notFound(`campaign ${campaignId} not found`);
    const { rows, total } = this.repo.list(campaignId, query.limit, (query.page - 1) * query.limit);
    const keyring = this.deps.keys.get();
    const open = (row: ReplyRow, column: keyof typeof REPLY_FIELDS) => keyring.decrypt(row[column], replyAad(row.team_id, row.id, REPLY_FIELDS[column]));
    const replies: CampaignReply[] = rows.map((row) => ({
      id: row.id,
      executionId: row.execution_id,
      contactId: row.contact_id,
      step: row.step,
      from: open(row, "from_ct"),
      subject: open(row, "subject_ct"),
      receivedAt: row.received_at,
      autoReply: row.auto_reply === 1,
      snippet: open(row, "snippet_ct"),
    }));
    return { replies, total, page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit) };
  }
}

/** Replies' encrypted columns for the key rotation (`outreach admin keys rotate`). */
export function repliesColumnSet(): EncryptedColumnSet {
  return {
    name: "campaign replies",
    table: "campaign_replies",
    idColumn: "id",
    keyIdColumn: "key_id",
    columns: Object.keys(REPLY_FIELDS),
    contextColumns: ["team_id"],
    aad: (row, column) => replyAad(row.team_id!, row.id!, REPLY_FIELDS[column as keyof typeof REPLY_FIELDS]),
  };
}
