import type { Clock } from "../../core/clock.js";
import { isPermanentMailboxError, type MailboxReader } from "../../providers/imap/mailbox-reader.js";
import type { MailboxWatchLock } from "../heartbeat-lock.js";
import { backoffMs, emptySummary, messageOf, type ReplySync, type SyncSummary } from "./reply-sync.js";

/** The watcher wakes at least this often, so its heartbeat stays fresh while IDLE waits. */
const HEARTBEAT_WAKE_MS = 20_000;
/** While another process watches, look at its lock this often. */
const LOCK_WAIT_MS = 10_000;

export interface ReplyWatcherDeps {
  clock: Clock;
  sync: ReplySync;
  lock: MailboxWatchLock;
  /** OUTREACH_IMAP_POLL_SECONDS, in ms: the pass interval without IDLE (and a safety net with it). */
  pollMs: number;
  log: (line: string) => void;
  /** How often a waiting process looks at the holder's lock (default 10 s). */
  lockWaitMs?: number;
  /** Called after each pass (the bench and tests watch it). */
  onPass?: (summary: SyncSummary) => void;
}

export function describeSummary(s: SyncSummary): string {
  return `${s.messages} message(s) read: ${s.replies} repl${s.replies === 1 ? "y" : "ies"}, ${s.autoReplies} auto-repl${s.autoReplies === 1 ? "y" : "ies"}, ${s.bounces} bounce(s), ${s.unmatched} unmatched, ${s.own} our own`;
}

/**
 * `outreach serve`'s mailbox watcher: one per data directory (the lock), it keeps a
 * connection open, passes over new mail when the server says it arrived (IDLE) or every
 * poll interval (no IDLE), reconnects with exponential backoff after a lost connection
 * (and says so), and gives up with one clear line on wrong credentials or a missing
 * folder instead of retrying for ever. Aborting the signal stops it after the batch in hand.
 */
export class ReplyWatcher {
  private wake: (() => void) | undefined;
  private news = false;

  constructor(private readonly deps: ReplyWatcherDeps) {}

  async run(signal: AbortSignal): Promise<void> {
    const { lock, log } = this.deps;
    let toldHolder = "";
    let failures = 0;
    try {
      while (!signal.aborted) {
        if (!lock.held) {
          const got = lock.acquire();
          if (!got.ok) {
            if (toldHolder !== got.holder) log(`mailbox watch waits: ${got.holder} watches the mailbox of this data directory`);
            toldHolder = got.holder;
            await this.deps.clock.sleep(this.deps.lockWaitMs ?? LOCK_WAIT_MS, signal).catch(() => {});
            continue;
          }
          log("mailbox watch started");
        }
        const reader = this.deps.sync.newReader();
        try {
          await this.watch(reader, signal, () => {
            if (failures > 0) log("mailbox: reconnected");
            failures = 0;
          });
        } catch (err) {
          if (signal.aborted) break;
          if (isPermanentMailboxError(err)) {
            log(`mailbox watch stopped: ${messageOf(err)}`);
            break;
          }
          failures++;
          const wait = backoffMs(failures);
          log(`mailbox connection lost: ${messageOf(err)}; reconnecting in ${Math.round(wait / 1000)} s`);
          await this.deps.clock.sleep(wait, signal).catch(() => {});
        } finally {
          await reader.close();
        }
      }
    } finally {
      lock.release();
    }
  }

  /** One connection's life: passes until the signal, a lost connection, or another holder. */
  private async watch(reader: MailboxReader, signal: AbortSignal, connected: () => void): Promise<void> {
    let lost: Error | undefined;
    reader.onNewMessages(() => this.notify());
    reader.onConnectionLost((err) => {
      lost ??= err;
      this.notify();
    });
    const box = await reader.open();
    connected();
    this.deps.log(
      box.idle
        ? `mailbox: watching ${reader.mailboxKey} with IDLE`
        : `mailbox: watching ${reader.mailboxKey} by polling every ${Math.round(this.deps.pollMs / 1000)} s (the server offers no IDLE)`,
    );
    const { sync, lock, clock, pollMs } = this.deps;
    let lastPass = 0;
    for (;;) {
      if (signal.aborted) return;
      if (lost) throw lost;
      if (!lock.beat()) {
        this.deps.log("mailbox watch: another process took the lock over; this one stops watching");
        return;
      }
      const due = this.news || clock.now().getTime() - lastPass >= pollMs;
      if (due) {
        this.news = false;
        lastPass = clock.now().getTime();
        const summary = emptySummary();
        await sync.pass(reader, box, summary, signal);
        if (summary.messages) this.deps.log(`mailbox: ${describeSummary(summary)}`);
        this.deps.onPass?.(summary);
      }
      await this.nap(Math.min(HEARTBEAT_WAKE_MS, box.idle ? pollMs : Math.max(100, pollMs - (clock.now().getTime() - lastPass))), signal);
    }
  }

  private notify(): void {
    this.news = true;
    this.wake?.();
  }

  /** Sleep until `ms` passed, new mail is reported, the connection is lost or the signal aborts. */
  private nap(ms: number, signal: AbortSignal): Promise<void> {
    if (this.news || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = new AbortController();
      const done = () => {
        this.wake = undefined;
        signal.removeEventListener("abort", done);
        timer.abort();
        resolve();
      };
      this.wake = done;
      signal.addEventListener("abort", done, { once: true });
      this.deps.clock.sleep(ms, timer.signal).then(done, () => {});
    });
  }
}
