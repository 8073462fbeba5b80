import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { isAppError } from "../../src/core/errors.js";
import { databasePath } from "../../src/services/instance.js";
import { BIN } from "../helpers/built-bin.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { unusedPort } from "../helpers/ports.js";
import { appendMessages, mail, mailboxState, testDovecot, type Dovecot } from "../helpers/mailbox.js";
import { sentCampaign, type SentCampaign } from "../helpers/replies.js";
import { faultyProxy, garbageServer } from "../helpers/tcp-faults.js";

const OUR = "Acme Dental <hello@acme-dental.test>";
const PEOPLE = ["amy", "ben", "cal", "dan", "eva", "fay"].map((n) => ({ email: `${n}@praxis-${n}.test`, name: n[0]!.toUpperCase() + n.slice(1) }));

/** Each person's reply in the thread, between `filler` unrelated messages (a newsletter, say). */
function repliesAmong(c: SentCampaign, filler: number): string[] {
  const out: string[] = [];
  const every = Math.max(1, Math.floor(filler / PEOPLE.length));
  for (let i = 0; i < filler; i++) {
    out.push(mail({ From: "news@letters.test", To: OUR, Subject: `Newsletter ${i}`, "Message-ID": `<n${i}@letters.test>` }, `issue ${i}`));
    const p = PEOPLE[Math.floor(i / every)];
    if (i % every === every - 1 && p) out.push(mail({ From: p.email, To: OUR, Subject: `Re: Hello ${p.name}`, "In-Reply-To": c.messageId[p.email] }, `Reply of ${p.name}`));
  }
  return out;
}

function countReplies(c: SentCampaign): number {
  return c.setup.instance.services.deps.db.prepare("SELECT COUNT(*) FROM campaign_replies").pluck().get() as number;
}

async function expectMailboxError(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAppError(err), String(err)).toBe(true);
  expect((err as { code: string }).code).toBe("provider_error");
  return (err as Error).message;
}

describe("reply sync faults", () => {
  it("an IMAP server that is down: a clear error after the reconnects, which the log announces", async () => {
    const c = await sentCampaign(PEOPLE.slice(0, 1));
    const port = await unusedPort();
    const dead = { port, user: "u", pass: "p" } as unknown as Dovecot;
    const message = await expectMailboxError(c.sync(dead, { attempts: 3, port }));
    expect(message).toContain(`could not read the mailbox at 127.0.0.1:${port}`);
    expect(c.setup.logs.filter((l) => l.includes("reconnecting in"))).toHaveLength(2);
  });

  it("wrong credentials: one clear error at once (no reconnect loop); the CLI exits 6 with one line", async () => {
    const c = await sentCampaign(PEOPLE.slice(0, 1));
    const dovecot = await testDovecot();
    const wrong = { ...dovecot, pass: "not-the-password" } as Dovecot;
    const message = await expectMailboxError(c.sync(wrong, { attempts: 5 }));
    expect(message).toContain(`refused the login of ${dovecot.user}`);
    expect(c.setup.logs.some((l) => l.includes("reconnecting"))).toBe(false);

    const env = cliEnv({
      OUTREACH_DATA_DIR: c.setup.instance.services.deps.dataDir,
      OUTREACH_IMAP_URL: `imap://${encodeURIComponent(dovecot.user)}:wrong@127.0.0.1:${dovecot.port}/INBOX`,
    });
    const result = await runCli(["replies", "sync"], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain("refused the login");
    expect(result.stderr).not.toContain("reconnecting");
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("a server that answers garbage: a clear error, nothing recorded", async () => {
    const c = await sentCampaign(PEOPLE.slice(0, 1));
    const port = await garbageServer("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n\x00\xff garbage\r\n");
    const message = await expectMailboxError(c.sync({ port, user: "u", pass: "p" } as unknown as Dovecot, { attempts: 1, port, timeoutMs: 2_000 }));
    expect(message).toMatch(/127\.0\.0\.1/);
    expect(countReplies(c)).toBe(0);
  });

  it("a slow server, and a connection dropped in the middle of a FETCH: reconnects, reads on, counts each reply once", async () => {
    const c = await sentCampaign(PEOPLE);
    const dovecot = await testDovecot();
    await appendMessages(dovecot, repliesAmong(c, 24));
    const before = await mailboxState(dovecot);
    let headerFetches = 0;
    const proxy = await faultyProxy(dovecot.port, {
      delayMs: 2,
      // The third header FETCH is cut half-way through its answer.
      cutAfter: (chunk) => /UID FETCH/i.test(chunk) && /HEADER\.FIELDS/i.test(chunk) && ++headerFetches === 3,
    });
    const summary = await c.sync(dovecot, { port: proxy.port, batchSize: 5, attempts: 3 });
    expect(proxy.cuts).toBe(1);
    expect(proxy.connections).toBe(2);
    expect(c.setup.logs.some((l) => /reconnecting in 1 s/.test(l))).toBe(true);
    // Batches committed before the cut are not read again; none is counted twice.
    expect(summary.replies).toBe(PEOPLE.length);
    expect(countReplies(c)).toBe(PEOPLE.length);
    expect(Object.values(c.nextStep()).every((s) => s === "skipped")).toBe(true);
    expect(await mailboxState(dovecot)).toEqual(before);
  });

  it("kill -9 during a sync, then a restart: each reply is counted once", async () => {
    const c = await sentCampaign(PEOPLE);
    const dovecot = await testDovecot();
    // Two UID ranges (1,000 and the rest), each with replies. The link hangs when the bodies
    // of the second range are asked for: the first range is committed, the second can never
    // be, and the kill lands there.
    await appendMessages(dovecot, repliesAmong(c, 1400));
    let bodyFetches = 0;
    const proxy = await faultyProxy(dovecot.port, { holdWhen: (chunk) => /BODY\.PEEK\[\]/i.test(chunk) && ++bodyFetches === 2 });
    const dataDir = c.setup.instance.services.deps.dataDir;
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, OUTREACH_DATA_DIR: dataDir, OUTREACH_IMAP_URL: `imap://${encodeURIComponent(dovecot.user)}:${encodeURIComponent(dovecot.pass)}@127.0.0.1:${proxy.port}/INBOX` };
    const child = spawn(process.execPath, [BIN, "replies", "sync"], { env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const watcher = new Database(databasePath(dataDir), { readonly: true });
    const cursor = () => (watcher.prepare("SELECT MAX(last_uid) FROM mailbox_cursors").pluck().get() as number | null) ?? 0;
    const deadline = Date.now() + 60_000;
    while (!(proxy.held && cursor() > 0) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    const at = cursor();
    child.kill("SIGKILL");
    await exited;
    watcher.close();
    expect(proxy.held).toBe(true);
    expect(at).toBe(1000); // the first range, committed; the second never was
    expect(countReplies(c)).toBeGreaterThan(0);
    expect(countReplies(c)).toBeLessThan(PEOPLE.length);

    const result = await runCli(["replies", "sync", "--json"], { env: cliEnv({ OUTREACH_DATA_DIR: dataDir, OUTREACH_IMAP_URL: `imap://${encodeURIComponent(dovecot.user)}:${encodeURIComponent(dovecot.pass)}@127.0.0.1:${dovecot.port}/INBOX` }) });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { messages: number; replies: number };
    expect(summary.messages).toBe(1400 + PEOPLE.length - at);
    expect(countReplies(c)).toBe(PEOPLE.length);
    const perExecution = c.setup.instance.services.deps.db.prepare("SELECT COUNT(*) FROM campaign_replies GROUP BY execution_id HAVING COUNT(*) > 1").all();
    expect(perExecution).toEqual([]);
  }, 120_000);
});
