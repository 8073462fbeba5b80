import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { MailboxWatchLock } from "../../src/services/heartbeat-lock.js";
import { startMailboxWatcher, type MailboxWatch } from "../../src/services/replies/reply-runtime.js";
import { appendMessages, mail, settingsOf, testDovecot, type Dovecot } from "../helpers/mailbox.js";
import { sentCampaign, type SentCampaign } from "../helpers/replies.js";

const OUR = "hello@acme-dental.test";

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function watch(c: SentCampaign, dovecot: Dovecot, logs: string[], options: { pid?: number; lockWaitMs?: number } = {}): MailboxWatch {
  return startMailboxWatcher(c.setup.instance.services, { log: (l) => logs.push(l), clock: systemClock, settings: settingsOf(dovecot), ...options })!;
}

function lockRow(c: SentCampaign): { pid: number } | undefined {
  return c.setup.instance.services.deps.db.prepare("SELECT pid FROM mailbox_watch_lock").get() as { pid: number } | undefined;
}

/** A pid that no process has now (a child that already exited). */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid!;
}

describe("serve's mailbox watcher", () => {
  it("with IDLE: a reply appended while it watches stops the contact's next step; stopping it releases the lock and logs out", async () => {
    const c = await sentCampaign([{ email: "ida@praxis-ida.test", name: "Ida" }]);
    const dovecot = await testDovecot();
    const logs: string[] = [];
    const passes: number[] = [];
    const watcher = startMailboxWatcher(c.setup.instance.services, { log: (l) => logs.push(l), clock: systemClock, settings: settingsOf(dovecot), onPass: (s) => passes.push(s.messages) })!;
    await until("the first pass", () => passes.length > 0);
    expect(logs).toContain("mailbox watch started");
    expect(logs.some((l) => /^mailbox: watching .+\/INBOX with IDLE$/.test(l))).toBe(true);
    await appendMessages(dovecot, [mail({ From: "ida@praxis-ida.test", To: OUR, Subject: "Re: Hello Ida", "In-Reply-To": c.messageId["ida@praxis-ida.test"] }, "Yes!")]);
    await until("the step to be skipped", () => c.nextStep()["ida@praxis-ida.test"] === "skipped");
    // The pass logs once it is over (after the commit that skipped the step).
    await until("the pass's line", () => logs.some((l) => l.startsWith("mailbox: 1 message(s) read: 1 reply")));
    expect(lockRow(c)?.pid).toBe(process.pid);
    await watcher.stop();
    expect(lockRow(c)).toBeUndefined();
  });

  it("without IDLE: it polls every OUTREACH_IMAP_POLL_SECONDS, and each poll sees the mail that came since", async () => {
    const c = await sentCampaign([
      { email: "jan@praxis-jan.test", name: "Jan" },
      { email: "kim@praxis-kim.test", name: "Kim" },
    ]);
    c.setup.instance.services.deps.config.imapPollSeconds = 1;
    const dovecot = await testDovecot({ noIdle: true });
    const logs: string[] = [];
    const watcher = watch(c, dovecot, logs);
    await until("the watch to start", () => logs.some((l) => l.includes("by polling every 1 s (the server offers no IDLE)")));
    await appendMessages(dovecot, [mail({ From: "jan@praxis-jan.test", To: OUR, Subject: "AW: Hello Jan" }, "Ja.")]);
    await until("the step to be skipped", () => c.nextStep()["jan@praxis-jan.test"] === "skipped");
    // A later poll on the same connection: the server's UIDNEXT must be read afresh.
    await appendMessages(dovecot, [mail({ From: "kim@praxis-kim.test", To: OUR, Subject: "Re: Hello Kim" }, "Yes.")]);
    await until("the second step to be skipped", () => c.nextStep()["kim@praxis-kim.test"] === "skipped");
    await watcher.stop();
  });

  it("two watchers on one data directory: one watches, the other waits and takes over when the holder dies", async () => {
    const c = await sentCampaign([{ email: "kai@praxis-kai.test", name: "Kai" }]);
    const dovecot = await testDovecot();
    // Another serve holds the lock and is alive (this process, fresh heartbeat).
    const other = new MailboxWatchLock({ db: c.setup.instance.services.deps.db, clock: systemClock });
    expect(other.acquire().ok).toBe(true);
    const logs: string[] = [];
    const watcher = watch(c, dovecot, logs, { lockWaitMs: 50 });
    await until("the second watcher to wait", () => logs.some((l) => l.startsWith("mailbox watch waits: process")));
    await appendMessages(dovecot, [mail({ From: "kai@praxis-kai.test", To: OUR, Subject: "Re: Hello Kai", "In-Reply-To": c.messageId["kai@praxis-kai.test"] }, "ok")]);
    await new Promise((r) => setTimeout(r, 300));
    expect(c.nextStep()["kai@praxis-kai.test"]).toBe("pending"); // nobody watches but the holder
    expect(logs).not.toContain("mailbox watch started");
    // The holder is killed (kill -9: its row stays, its process is gone).
    c.setup.instance.services.deps.db.prepare("UPDATE mailbox_watch_lock SET pid = ?").run(deadPid());
    await until("the takeover", () => logs.includes("mailbox watch started"));
    await until("the reply to be read", () => c.nextStep()["kai@praxis-kai.test"] === "skipped");
    expect(lockRow(c)?.pid).toBe(process.pid);
    await watcher.stop();
  });

  it("wrong credentials: one clear line and the watch stops (no reconnect loop)", async () => {
    const c = await sentCampaign([{ email: "lea@praxis-lea.test", name: "Lea" }]);
    const dovecot = await testDovecot();
    const logs: string[] = [];
    const watcher = startMailboxWatcher(c.setup.instance.services, { log: (l) => logs.push(l), clock: systemClock, settings: { ...settingsOf(dovecot), pass: "wrong" } })!;
    await until("the watch to stop", () => logs.some((l) => l.startsWith("mailbox watch stopped:")));
    expect(logs.filter((l) => l.includes("refused the login"))).toHaveLength(1);
    expect(logs.some((l) => l.includes("reconnecting"))).toBe(false);
    await watcher.stop();
    expect(lockRow(c)).toBeUndefined();
  });
});

describe("outreach serve with OUTREACH_IMAP_URL (the built binary)", () => {
  it("two serve processes: one watches; after a kill -9 the other takes over and reads the reply; SIGTERM stops it cleanly and frees the lock", async () => {
    const { spawnServe } = await import("../helpers/serve-bin.js");
    const c = await sentCampaign([{ email: "mia@praxis-mia.test", name: "Mia" }]);
    const dovecot = await testDovecot();
    const dataDir = c.setup.instance.services.deps.dataDir;
    const env = { HOME: process.env.HOME, OUTREACH_IMAP_URL: dovecot.url() };
    const first = await spawnServe(dataDir, env);
    await until("the first watcher", () => first.stderr().includes("mailbox watch started"));
    const second = await spawnServe(dataDir, env);
    await until("the second to wait", () => second.stderr().includes(`mailbox watch waits: process ${first.child.pid} on`));
    first.child.kill("SIGKILL");
    await first.exited;
    await appendMessages(dovecot, [mail({ From: "mia@praxis-mia.test", To: OUR, Subject: "Re: Hello Mia", "In-Reply-To": c.messageId["mia@praxis-mia.test"] }, "Gern.")]);
    await until("the takeover", () => second.stderr().includes("mailbox watch started"), 30_000);
    await until("the reply", () => c.nextStep()["mia@praxis-mia.test"] === "skipped", 30_000);
    await until("the pass's line", () => /mailbox: 1 message\(s\) read: 1 reply/.test(second.stderr()));
    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
    expect(lockRow(c)).toBeUndefined();
    expect(second.stderr()).not.toMatch(/mailbox watch stopped|connection lost/);
  }, 90_000);
});
