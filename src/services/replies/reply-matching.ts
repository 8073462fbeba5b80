import freeEmailDomains from "free-email-domains-list";
import type { Clock } from "../../core/clock.js";
import type { MailboxHeaders } from "../../providers/imap/mailbox-reader.js";
import type { Db } from "../../store/db.js";
import { RepliesRepo, type ReplyTarget } from "../../store/replies.js";
import type { BrandService } from "../sending/brand.js";
import type { ContactService } from "../contacts/contacts.js";
import type { MessageTemplates } from "../sending/message-template.js";
import type { OutgoingMessages } from "../sending/outgoing-message.js";
import { addressOf, baseSubject, isAutoReply, isDeliveryStatus, messageIdsIn } from "./reply-text.js";

/** How long after a send a reply without threading headers is still matched by sender and subject. */
export const SUBJECT_MATCH_DAYS = 30;

/** What one mailbox message is to us. */
export type MessageVerdict =
  | { kind: "own" }
  | { kind: "dsn" }
  | { kind: "unmatched"; reason: string }
  | { kind: "reply"; target: ReplyTarget; matchedBy: "headers" | "subject"; autoReply: boolean; from: string; subject: string };

/**
 * Free-mail domains (the `free-email-domains-list` package, updated weekly upstream): a
 * reply from gmail.com says nothing about the other contacts at gmail.com, so the
 * `domain` stop scope never applies to them.
 */
export function isFreemailDomain(domain: string): boolean {
  return freeEmailDomains.DOMAINS.has(domain.toLowerCase());
}

function header(headers: Map<string, string[]>, name: string): string | undefined {
  return headers.get(name)?.[0];
}

/** RFC 2047 encoded words in a header (`=?utf-8?Q?…?=`), decoded; anything else as it is. */
export function decodeWords(value: string): string {
  // Most From and Subject values hold no encoded word: a first sync reads 10,000 of each.
  if (!value.includes("=?")) return value;
  return value.replace(/\s*=\?([^?]+)\?([bq])\?([^?]*)\?=\s*/gi, (_all, charset: string, enc: string, text: string) => {
    try {
      const bytes = enc.toLowerCase() === "b" ? Buffer.from(text, "base64") : Buffer.from(text.replace(/_/g, " ").replace(/=([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1");
      return new TextDecoder(charset.toLowerCase().replace(/^utf8$/, "utf-8")).decode(bytes);
    } catch {
      return text;
    }
  });
}

/**
 * Decides what a message is: our own copy, a delivery status notification, a reply (or
 * auto-reply) to one execution, or nothing of ours. In-Reply-To/References first (the
 * newest reference that names an execution's Message-ID); else the sender is a contact
 * that was sent something in the last 30 days whose subject, reply prefixes stripped, is
 * this subject (Gmail and Outlook keep the subject, while relays that rewrite Message-IDs
 * break the references).
 */
export class ReplyMatcher {
  private readonly repo: RepliesRepo;
  private ourSenders: Set<string> | undefined;
  /** Workspaces that sent in the window, read once per pass (a scan of the executions). */
  private teams: string[] | undefined;
  /** Rendered subjects by execution: one render per execution per sync. */
  private readonly subjects = new Map<string, string>();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      contacts: ContactService;
      brand: BrandService;
      templates: MessageTemplates;
      messages: OutgoingMessages;
    },
  ) {
    this.repo = new RepliesRepo(deps.db);
  }

  async verdict(message: MailboxHeaders, options: { sentFolder: boolean }): Promise<MessageVerdict> {
    const h = message.headers;
    if (options.sentFolder) return { kind: "own" };
    const from = addressOf(decodeWords(header(h, "from") ?? ""));
    this.ourSenders ??= new Set(this.repo.senderAddresses());
    if (from && this.ourSenders.has(from)) return { kind: "own" };
    if (isDeliveryStatus(h)) return { kind: "dsn" };
    const subject = decodeWords(header(h, "subject") ?? "").trim();
    const autoReply = isAutoReply(h, subject);
    if (!from) return { kind: "unmatched", reason: "no sender" };
    for (const id of [...messageIdsIn(header(h, "in-reply-to")), ...messageIdsIn(h.get("references")?.join(" ")).reverse()]) {
      const target = this.repo.executionByMessageId(id);
      if (target) return { kind: "reply", target, matchedBy: "headers", autoReply, from, subject };
    }
    const bySubject = await this.bySenderAndSubject(from, subject);
    if (bySubject) return { kind: "reply", target: bySubject, matchedBy: "subject", autoReply, from, subject };
    return { kind: "unmatched", reason: "no execution matches" };
  }

  private async bySenderAndSubject(from: string, subject: string): Promise<ReplyTarget | undefined> {
    const reply = baseSubject(subject);
    if (!reply.replied || !reply.base) return undefined;
    const since = new Date(this.deps.clock.now().getTime() - SUBJECT_MATCH_DAYS * 86_400_000).toISOString();
    this.teams ??= this.repo.teamsSentSince(since);
    for (const teamId of this.teams) {
      const contact = this.deps.contacts.findByEmail(teamId, from);
      if (!contact) continue;
      for (const target of this.repo.sentToContactSince(contact.id, since)) {
        const sent = await this.subjectOf(target, contact);
        if (sent !== undefined && baseSubject(sent).base === reply.base) return target;
      }
    }
    return undefined;
  }

  /**
   * The subject an execution went out with: its step's own subject, or (a follow-up
   * without one, which stays in the thread) step 0's; rendered for the contact as the
   * delivery rendered it (the rendered subject is not stored).
   */
  private async subjectOf(target: ReplyTarget, contact: { id: string; email: string; name: string; phone: string | null; description: string | null; tags: string[] }): Promise<string | undefined> {
    const cached = this.subjects.get(target.id);
    if (cached !== undefined) return cached;
    const campaign = this.deps.db.prepare("SELECT id, team_id, subject, body_markdown, follow_ups FROM campaigns WHERE id = ?").get(target.campaign_id) as
      | { id: string; team_id: string; subject: string; body_markdown: string; follow_ups: string }
      | undefined;
    if (!campaign) return undefined;
    const followUps = JSON.parse(campaign.follow_ups) as Array<{ subject?: string | null }>;
    const template = target.step > 0 ? (followUps[target.step - 1]?.subject ?? campaign.subject) : campaign.subject;
    let rendered: string;
    try {
      rendered = await this.deps.templates.render("subject", template, {
        contact: { name: contact.name, email: contact.email, phone: contact.phone, description: contact.description, tags: contact.tags, opener: this.deps.messages.openerOf(campaign, contact.id) },
        brand: { ...this.deps.brand.forTeam(target.team_id) },
        unsubscribeUrl: this.deps.messages.unsubscribeUrl(target.campaign_id, contact.id),
      });
    } catch {
      return undefined;
    }
    this.subjects.set(target.id, rendered);
    return rendered;
  }
}
