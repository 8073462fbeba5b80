import type { Clock } from "../../core/clock.js";
import { conflict } from "../../core/errors.js";
import type { ImapSettings } from "../../providers/imap/mailbox-reader.js";
import { MailboxWatchLock } from "../heartbeat-lock.js";
import { createBounces, type Services } from "../index.js";
import { ReplyMatcher } from "./reply-matching.js";
import { ReplySync, type ReplySyncDeps, type SyncSummary } from "./reply-sync.js";
import { ReplyWatcher } from "./reply-watcher.js";

/**
 * The long-running and one-shot parts of reply detection, built here so the CLI needs
 * neither the IMAP provider nor the wiring: `serve`'s mailbox watcher and
 * `outreach replies sync`.
 */

/** The mailbox of OUTREACH_IMAP_URL, or a 409 saying how to set it. */
export function imapFromConfig(services: Services): ImapSettings {
  const imap = services.deps.config.imap;
  if (!imap) throw conflict("OUTREACH_IMAP_URL is not set: no mailbox to read replies from (imaps://user:pass@imap.example.com/INBOX)");
  return imap;
}

export function createReplySync(services: Services, options: { log: (line: string) => void; settings?: ImapSettings } & Partial<Pick<ReplySyncDeps, "reader" | "batchSize" | "timeoutMs">>): ReplySync {
  const { db, clock } = services.deps;
  const { settings, ...rest } = options;
  return new ReplySync({
    db,
    clock,
    settings: settings ?? imapFromConfig(services),
    matcher: () => new ReplyMatcher({ db, clock, contacts: services.contacts, brand: services.brand, templates: services.templates, messages: services.messages }),
    records: services.replies,
    bounces: createBounces(services, options.log),
    ...rest,
  });
}

/** `outreach replies sync`: one pass over the new mail of OUTREACH_IMAP_URL. */
export function syncReplies(services: Services, options: { log: (line: string) => void; signal?: AbortSignal }): Promise<SyncSummary> {
  return createReplySync(services, { log: options.log }).syncOnce({ signal: options.signal });
}

export interface MailboxWatch {
  /** Stop watching: the batch in hand is recorded first. */
  stop(): Promise<void>;
}

/** `outreach serve`: watches OUTREACH_IMAP_URL when it is set (undefined otherwise). */
export function startMailboxWatcher(
  services: Services,
  options: { log: (line: string) => void; onPass?: (summary: SyncSummary) => void; pid?: number; clock?: Clock; lockWaitMs?: number; settings?: ImapSettings },
): MailboxWatch | undefined {
  if (!services.deps.config.imap && !options.settings) return undefined;
  const { db, config } = services.deps;
  const clock = options.clock ?? services.deps.clock;
  const lock = new MailboxWatchLock({ db, clock, pid: options.pid });
  const watcher = new ReplyWatcher({
    clock,
    sync: createReplySync(services, { log: options.log, settings: options.settings }),
    lock,
    pollMs: config.imapPollSeconds * 1000,
    log: options.log,
    onPass: options.onPass,
    lockWaitMs: options.lockWaitMs,
  });
  const abort = new AbortController();
  const running = watcher.run(abort.signal).catch((err: unknown) => options.log(`mailbox watch stopped: ${err instanceof Error ? err.message : String(err)}`));
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}
