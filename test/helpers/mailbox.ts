import { ImapFlow } from "imapflow";
import { afterEach } from "vitest";
import type { ImapSettings } from "../../src/providers/imap/mailbox-reader.js";
import { startDovecot } from "./dovecot.js";

export type Dovecot = Awaited<ReturnType<typeof startDovecot>>;

const running: Dovecot[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});

/** A private Dovecot for this test (stopped by PID after it). */
export async function testDovecot(options: { noIdle?: boolean } = {}): Promise<Dovecot> {
  const dovecot = await startDovecot(options);
  running.push(dovecot);
  return dovecot;
}

export function settingsOf(dovecot: Dovecot, mailbox = "INBOX", port = dovecot.port): ImapSettings {
  return { host: "127.0.0.1", port, secure: false, user: dovecot.user, pass: dovecot.pass, mailbox };
}

async function client<T>(dovecot: Dovecot, work: (c: ImapFlow) => Promise<T>): Promise<T> {
  const c = new ImapFlow({ host: "127.0.0.1", port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.pass }, logger: false, disableAutoIdle: true });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.logout();
  }
}

/** Put messages into a folder with IMAP APPEND, as a mail client files what it receives. */
export function appendMessages(dovecot: Dovecot, raws: string[], mailbox = "INBOX"): Promise<void> {
  return client(dovecot, async (c) => {
    for (const raw of raws) await c.append(mailbox, raw.replace(/\r?\n/g, "\r\n"), [], new Date("2026-11-22T12:00:00Z"));
  });
}

/** Every message's UID and flags, and the folder's size: what "the mailbox is untouched" compares. */
export function mailboxState(dovecot: Dovecot, mailbox = "INBOX"): Promise<{ exists: number; flags: Array<[number, string[]]> }> {
  return client(dovecot, async (c) => {
    const box = await c.mailboxOpen(mailbox, { readOnly: true });
    const flags: Array<[number, string[]]> = [];
    if (box.exists > 0) for await (const m of c.fetch("1:*", { uid: true, flags: true })) flags.push([m.uid, [...(m.flags ?? [])].sort()]);
    return { exists: box.exists, flags };
  });
}

/** A reply as a mail client writes it (headers then a plain-text body). */
export function mail(headers: Record<string, string | undefined>, body: string): string {
  const lines = Object.entries(headers)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}`);
  return [...lines, "MIME-Version: 1.0", ...(headers["Content-Type"] ? [] : ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]), "", body, ""].join("\r\n");
}
