import type { Clock } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import { isPermanentMailboxError, MailboxReader, type ImapSettings, type MailboxHeaders, type OpenMailbox } from "../../providers/imap/mailbox-reader.js";
import { quickPlainText, readMessageContent, type MessageContent } from "../../providers/imap/message-content.js";
import type { Db } from "../../store/db.js";
import { RepliesRepo } from "../../store/replies.js";
import type { BounceService } from "../sending/bounces.js";
import { verpAddress } from "../sending/outgoing-message.js";
import type { MessageVerdict, ReplyMatcher } from "./reply-matching.js";
import type { IncomingReply, ReplyRecords } from "./reply-records.js";
import { replySnippet } from "./reply-text.js";

/** What one sync read and made of it (`outreach replies sync` prints it). */
export interface SyncSummary {
  /** Messages read (newer than the stored cursor). */
  messages: number;
  replies: number;
  autoReplies: number;
  /** Delivery status notifications processed as bounces. */
  bounces: number;
  /** Messages that are neither ours nor answer an execution (an unknown sender, a newsletter). */
  unmatched: number;
  /** Our own messages (From a sending address, or a Sent folder). */
  own: number;
}

export function emptySummary(): SyncSummary {
  return { messages: 0, replies: 0, autoReplies: 0, bounces: 0, unmatched: 0, own: 0 };
}

/** UIDs per UID FETCH of headers: bounds memory whatever the mailbox's size. */
const HEADER_BATCH = 1000;
/** Bytes of a message read for its snippet or DSN report (BODY.PEEK[]<0.N>). */
const BODY_BYTES = 256 * 1024;

interface Decided {
  message: MailboxHeaders;
  verdict: MessageVerdict;
  content?: MessageContent;
  peers?: string[];
}

export interface ReplySyncDeps {
  db: Db;
  clock: Clock;
  settings: ImapSettings;
  /** A fresh matcher per pass (it caches our sender addresses and rendered subjects). */
  matcher: () => ReplyMatcher;
  records: ReplyRecords;
  bounces: BounceService;
  log: (line: string) => void;
  /** Tests replace the reader (a broken server is a real TCP server, not a stub of this). */
  reader?: (settings: ImapSettings) => MailboxReader;
  batchSize?: number;
  timeoutMs?: number;
}

/**
 * Reads new messages of the mailbox and records what they are (docs/api.md, "Replies").
 * The cursor (last UID per mailbox and UIDVALIDITY) moves in the same transaction that
 * records a batch's replies and bounces, and a batch skips what another process already
 * recorded past the cursor, so a crash, a reconnect or a second process counts nothing
 * twice; the mailbox is only EXAMINEd and read with BODY.PEEK.
 */
export class ReplySync {
  private readonly repo: RepliesRepo;

  constructor(private readonly deps: ReplySyncDeps) {
    this.repo = new RepliesRepo(deps.db);
  }

  newReader(): MailboxReader {
    return this.deps.reader ? this.deps.reader(this.deps.settings) : new MailboxReader(this.deps.settings, { timeoutMs: this.deps.timeoutMs });
  }

  /**
   * Everything new, once, on a connection of its own (`outreach replies sync`). A lost
   * connection is reconnected with backoff (up to `attempts` times); wrong credentials
   * or a missing folder fail at once.
   */
  async syncOnce(options: { signal?: AbortSignal; attempts?: number } = {}): Promise<SyncSummary> {
    const summary = emptySummary();
    const attempts = options.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      const reader = this.newReader();
      try {
        const box = await reader.open();
        await this.pass(reader, box, summary, options.signal);
        return summary;
      } catch (err) {
        if (isPermanentMailboxError(err) || attempt >= attempts || options.signal?.aborted) throw asMailboxError(err, this.deps.settings);
        const wait = backoffMs(attempt);
        this.deps.log(`mailbox: ${messageOf(err)}; reconnecting in ${Math.round(wait / 1000)} s (attempt ${attempt + 1} of ${attempts})`);
        await this.deps.clock.sleep(wait, options.signal).catch(() => {});
      } finally {
        await reader.close();
      }
    }
  }

  /** Read every message after the cursor, in UID ranges; each range is one transaction. */
  async pass(reader: MailboxReader, box: OpenMailbox, summary: SyncSummary, signal?: AbortSignal): Promise<void> {
    const key = reader.mailboxKey;
    const matcher = this.deps.matcher();
    const sentFolder = box.specialUse === "\\Sent";
    const batch = this.deps.batchSize ?? HEADER_BATCH;
    let uidNext = Math.max(box.uidNext, reader.current()?.uidNext ?? 0);
    /** The first UID not asked for yet. */
    let unasked = this.repo.lastUid(key, box.uidValidity) + 1;
    // The server is never left waiting for us: while range n is matched, range n+1's headers
    // stream in; range n's bodies are asked for behind them, and range n+2's headers right
    // behind the bodies, so the server sends those while range n is parsed and recorded.
    // imapflow sends its commands one after the other, in the order they were asked; at most
    // three ranges are in memory (the one in hand, the next, and the one streaming in).
    const asked: Array<{ from: number; to: number; headers: Promise<MailboxHeaders[]> }> = [];
    const askUpTo = (count: number) => {
      while (asked.length < count && unasked < uidNext) {
        const end = Math.min(unasked + batch - 1, uidNext - 1);
        const headers = reader.headers(unasked, end);
        headers.catch(() => {}); // awaited below; a failure surfaces there
        asked.push({ from: unasked, to: end, headers });
        unasked = end + 1;
      }
    };
    while (!signal?.aborted) {
      if (!asked.length && unasked >= uidNext) {
        // UIDNEXT may have moved since EXAMINE (new mail): ask before stopping.
        uidNext = Math.max(uidNext, await reader.uidNext());
        if (unasked >= uidNext) break;
      }
      askUpTo(2);
      const range = asked.shift()!;
      const messages = await range.headers;
      const decided: Decided[] = [];
      for (const message of messages) decided.push({ message, verdict: await matcher.verdict(message, { sentFolder }) });
      const wanted = decided.filter((d) => d.verdict.kind === "reply" || d.verdict.kind === "dsn");
      const bodiesAsked = reader.sources(
        wanted.map((d) => d.message.uid),
        BODY_BYTES,
      );
      bodiesAsked.catch(() => {}); // awaited below
      askUpTo(2);
      const bodies = await bodiesAsked;
      for (const d of wanted) {
        const source = bodies.get(d.message.uid);
        d.content = source ? await contentOf(source, d.verdict.kind === "dsn") : { text: "", reportedRecipients: [] };
        if (d.verdict.kind === "reply" && !d.verdict.autoReply) d.peers = this.deps.records.domainPeers(d.verdict.target);
      }
      this.commit(key, box.uidValidity, range.to, decided, summary);
    }
    // Aborted with ranges in flight: let them end before the connection is closed (a failure
    // closes the connection, which ends them).
    await Promise.all(asked.map((r) => r.headers.catch(() => {})));
  }

  private commit(key: string, uidValidity: string, to: number, decided: Decided[], summary: SyncSummary): void {
    const counted = emptySummary();
    this.deps.db
      .transaction(() => {
        // Another process may have gone further since we read the cursor: its messages are done.
        const done = this.repo.lastUid(key, uidValidity);
        for (const d of decided) {
          if (d.message.uid <= done) continue;
          counted.messages++;
          this.apply(d, { key, uidValidity }, counted);
        }
        this.repo.advance(key, uidValidity, to, this.deps.clock.now().toISOString());
      })
      .immediate();
    for (const k of Object.keys(summary) as Array<keyof SyncSummary>) summary[k] += counted[k];
  }

  private apply(d: Decided, mailbox: { key: string; uidValidity: string }, counted: SyncSummary): void {
    const { verdict, message } = d;
    if (verdict.kind === "own") counted.own++;
    else if (verdict.kind === "unmatched") counted.unmatched++;
    else if (verdict.kind === "dsn") {
      if (this.bounce(d)) counted.bounces++;
      else counted.unmatched++;
    } else {
      const reply: IncomingReply = {
        target: verdict.target,
        matchedBy: verdict.matchedBy,
        autoReply: verdict.autoReply,
        from: verdict.from,
        subject: verdict.subject,
        snippet: replySnippet(d.content?.text ?? ""),
        messageId: message.headers.get("message-id")?.[0]?.trim() || null,
        receivedAt: receivedAt(message, this.deps.clock),
        mailbox: { key: mailbox.key, uidValidity: mailbox.uidValidity, uid: message.uid },
      };
      if (this.deps.records.record(reply, d.peers ?? []) === "recorded") {
        if (verdict.autoReply) counted.autoReplies++;
        else counted.replies++;
      }
    }
  }

  /** A DSN in the mailbox, as the bounce listener would have handled it (same service, same rules). */
  private bounce(d: Decided): boolean {
    const report = d.content?.report;
    if (!report) return false;
    const refs = [d.content?.originalMessageId, ...(d.message.headers.get("in-reply-to") ?? []), ...(d.message.headers.get("references") ?? [])];
    for (const ref of refs) {
      for (const id of ref ? (ref.match(/<[^<>\s]+>/g) ?? []) : []) {
        const target = this.repo.executionByMessageId(id);
        if (target) return this.deps.bounces.handle({ recipient: verpAddress(target.id, "mailbox.invalid"), ...report }) !== "unknown";
      }
    }
    return false;
  }
}

/** A body mailparser cannot read is a reply without a snippet, not a pass that fails for ever. */
async function contentOf(source: Buffer, report: boolean): Promise<MessageContent> {
  const quick = report ? undefined : quickPlainText(source);
  if (quick !== undefined) return { text: quick, reportedRecipients: [] };
  try {
    return await readMessageContent(source);
  } catch {
    return { text: "", reportedRecipients: [] };
  }
}

function receivedAt(message: MailboxHeaders, clock: Clock): string {
  const date = message.internalDate ?? new Date(message.headers.get("date")?.[0] ?? "");
  return Number.isNaN(date.getTime()) ? clock.now().toISOString() : date.toISOString();
}

/** 1 s, 2 s, 4 s … at most a minute. */
export function backoffMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Any failure of a sync as the one clear error the CLI prints (exit 6: a provider's failure). */
function asMailboxError(err: unknown, settings: ImapSettings): unknown {
  if (err instanceof AppError) return err;
  return new AppError("provider_error", `reading the mailbox at ${settings.host}:${settings.port} failed: ${messageOf(err)}`, { cause: err });
}
