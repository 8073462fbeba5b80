import { describe, expect, it } from "vitest";
import { deliveryStatusNotification } from "../helpers/dsn.js";
import { appendMessages, mail, mailboxState, testDovecot } from "../helpers/mailbox.js";
import { sentCampaign } from "../helpers/replies.js";
import { startTestServer } from "../helpers/server.js";
import { faultyProxy } from "../helpers/tcp-faults.js";
import { MailboxReader, type ImapSettings } from "../../src/providers/imap/mailbox-reader.js";

const OUR = "Acme Dental <hello@acme-dental.test>";

describe("reply detection from a real IMAP mailbox (Dovecot)", () => {
  it("records replies by thread headers and by subject, auto-replies, bounces and skips the rest; stops the right sequences; leaves the mailbox untouched", async () => {
    const people = [
      { email: "anna@praxis-anna.test", name: "Anna" },
      { email: "bernd@zahnarzt-bernd.test", name: "Bernd" },
      { email: "carla@smile-carla.test", name: "Carla" },
      { email: "dora@dental-dora.test", name: "Dora" },
      { email: "ed@clinic-ed.test", name: "Ed" },
      { email: "fritz@praxis-fritz.test", name: "Fritz" },
      { email: "gina@gina-dental.test", name: "Gina" },
    ];
    const c = await sentCampaign(people);
    const dovecot = await testDovecot();
    await appendMessages(dovecot, [
      // Anna answers in the thread, quoting us (Thunderbird-style).
      mail(
        {
          From: "Anna Weber <anna@praxis-anna.test>",
          To: OUR,
          Subject: "Re: Hello Anna",
          Date: "Sun, 22 Nov 2026 11:02:00 +0100",
          "Message-ID": "<a1b2c3@praxis-anna.test>",
          "In-Reply-To": c.messageId["anna@praxis-anna.test"],
          References: c.messageId["anna@praxis-anna.test"],
        },
        "Yes, please call me on Monday.\r\n\r\nAnna\r\n\r\nOn 22.11.26 10:00, Acme Dental wrote:\r\n> Dear Anna,\r\n> our new clinic is open.",
      ),
      // Bernd's German client drops In-Reply-To and References: matched by sender and "AW:" subject.
      mail(
        { From: "Bernd <bernd@zahnarzt-bernd.test>", To: OUR, Subject: "AW: Hello Bernd", Date: "Sun, 22 Nov 2026 12:00:00 +0100", "Message-ID": "<b@zahnarzt-bernd.test>" },
        "Danke, kein Interesse.\r\n\r\nAm 22.11.2026 um 11:00 schrieb Acme Dental <hello@acme-dental.test>:\r\n> Dear Bernd,",
      ),
      // Carla is out of office (Gmail's vacation responder: RFC 3834 header, in the thread).
      mail(
        {
          From: "carla@smile-carla.test",
          To: OUR,
          Subject: "Re: Hello Carla",
          "Auto-Submitted": "auto-replied",
          Precedence: "bulk",
          "Message-ID": "<vacation-1@smile-carla.test>",
          "In-Reply-To": c.messageId["carla@smile-carla.test"],
          Date: "Sun, 22 Nov 2026 11:00:30 +0000",
        },
        "I am away until 1 December.",
      ),
      // Ed replies from Gmail through a relay that rewrote our Message-ID: the references name
      // nothing of ours, the subject and sender still do.
      mail(
        {
          From: "Ed <ed@clinic-ed.test>",
          To: OUR,
          Subject: "Re: Hello Ed",
          "Message-ID": "<CAJx9=ed@mail.gmail.com>",
          "In-Reply-To": "<0100018c-rewritten@email.amazonses.com>",
          References: "<0100018c-rewritten@email.amazonses.com>",
          Date: "Sun, 22 Nov 2026 13:00:00 +0000",
        },
        "Sounds good, send me the prices.\r\n\r\nOn Sun, 22 Nov 2026 at 11:00, Acme Dental <hello@acme-dental.test>\r\nwrote:\r\n> Dear Ed,",
      ),
      // Fritz replies from Outlook: no References, no In-Reply-To, Thread-Index, "RE:", no Message-ID.
      mail(
        {
          From: '"Fritz Müller" <Fritz@Praxis-Fritz.test>',
          To: OUR,
          Subject: "RE: Hello Fritz",
          "Thread-Topic": "Hello Fritz",
          "Thread-Index": "AQHZ1234567890abcdef==",
          Date: "Sun, 22 Nov 2026 14:00:00 +0000",
        },
        "Bitte rufen Sie an.\r\n\r\n________________________________\r\nVon: Acme Dental <hello@acme-dental.test>\r\nGesendet: Sonntag, 22. November 2026 11:00\r\nAn: Fritz\r\nBetreff: Hello Fritz",
      ),
      // Gina's address bounced: the DSN came to the mailbox instead of the bounce host.
      deliveryStatusNotification({ to: "hello@acme-dental.test", recipient: "gina@gina-dental.test", status: "5.1.1", diagnostic: "550 5.1.1 user unknown" }).replace(
        "--dsn-boundary-1--",
        `--dsn-boundary-1\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: ${c.messageId["gina@gina-dental.test"]}\r\nSubject: Hello Gina\r\n\r\n--dsn-boundary-1--`,
      ),
      // Our own copy (BCC to self) and a stranger: never replies.
      mail({ From: OUR, To: "dora@dental-dora.test", Subject: "Re: Hello Dora", "Message-ID": "<copy@acme-dental.test>", "In-Reply-To": c.messageId["dora@dental-dora.test"] }, "our copy"),
      mail({ From: "someone@else.test", To: OUR, Subject: "Re: Hello Dora", "Message-ID": "<x@else.test>" }, "who is Dora?"),
    ]);
    const before = await mailboxState(dovecot);

    const summary = await c.sync(dovecot);
    expect(summary).toEqual({ messages: 8, replies: 4, autoReplies: 1, bounces: 1, unmatched: 1, own: 1 });

    // The mailbox is untouched: same messages, same flags, \Seen set on none.
    const after = await mailboxState(dovecot);
    expect(after).toEqual(before);
    expect(after.flags.flatMap(([, f]) => f)).not.toContain("\\Seen");

    expect(c.nextStep()).toEqual({
      "anna@praxis-anna.test": "skipped",
      "bernd@zahnarzt-bernd.test": "skipped",
      "carla@smile-carla.test": "pending", // an auto-reply stops nothing without stopOnAutoReply
      "dora@dental-dora.test": "pending",
      "ed@clinic-ed.test": "skipped",
      "fritz@praxis-fritz.test": "skipped",
      "gina@gina-dental.test": "skipped", // bounced
    });
    expect(c.contactStatus("anna@praxis-anna.test")).toBe("replied");
    expect(c.contactStatus("carla@smile-carla.test")).toBe("active");
    expect(c.contactStatus("gina@gina-dental.test")).toBe("bounced");

    // The API lists them, newest first, with the quoted history cut off.
    const server = await startTestServer(c.setup.instance.services);
    const res = await server.request(`/api/v1/campaigns/${c.campaignId}/replies?limit=10`, { token: c.setup.instance.token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { replies: Array<Record<string, unknown>>; total: number; totalPages: number };
    expect(body.total).toBe(5);
    expect(body.totalPages).toBe(1);
    const byFrom = Object.fromEntries(body.replies.map((r) => [r.from, r]));
    expect(byFrom["anna@praxis-anna.test"]).toMatchObject({ step: 0, autoReply: false, subject: "Re: Hello Anna", snippet: "Yes, please call me on Monday.\n\nAnna", contactId: c.contact["anna@praxis-anna.test"] });
    expect(byFrom["bernd@zahnarzt-bernd.test"]).toMatchObject({ autoReply: false, snippet: "Danke, kein Interesse." });
    expect(byFrom["carla@smile-carla.test"]).toMatchObject({ autoReply: true, snippet: "I am away until 1 December." });
    expect(byFrom["ed@clinic-ed.test"]).toMatchObject({ snippet: "Sounds good, send me the prices." });
    expect(byFrom["fritz@praxis-fritz.test"]).toMatchObject({ subject: "RE: Hello Fritz", snippet: "Bitte rufen Sie an." });
    expect(body.replies.map((r) => r.receivedAt)).toEqual([...body.replies.map((r) => r.receivedAt as string)].sort().reverse());
    const executions = c.setup.instance.services.campaigns.executions(c.setup.principal, c.campaignId, { page: 1, limit: 100 }).executions;
    const annaStep0 = executions.find((e) => e.contactId === c.contact["anna@praxis-anna.test"] && e.step === 0)!;
    expect(byFrom["anna@praxis-anna.test"]!.executionId).toBe(annaStep0.id);

    // A second sync reads nothing new and counts nothing twice.
    expect(await c.sync(dovecot)).toEqual({ messages: 0, replies: 0, autoReplies: 0, bounces: 0, unmatched: 0, own: 0 });
    // A new message after that is read alone.
    await appendMessages(dovecot, [mail({ From: "dora@dental-dora.test", To: OUR, Subject: "Re: Hello Dora", "Message-ID": "<d@dental-dora.test>" }, "Call me.")]);
    expect(await c.sync(dovecot)).toMatchObject({ messages: 1, replies: 1 });
    expect(c.nextStep()["dora@dental-dora.test"]).toBe("skipped");
    expect((c.setup.instance.services.deps.db.prepare("SELECT COUNT(*) FROM campaign_replies").pluck().get() as number)).toBe(6);
  });

  it("with stopScope domain, a reply stops every contact of the campaign at that domain, but not at a free-mail domain", async () => {
    const c = await sentCampaign(
      [
        { email: "info@praxis-kern.test", name: "Kern" },
        { email: "termine@praxis-kern.test", name: "Termine" },
        { email: "other@praxis-ost.test", name: "Ost" },
        { email: "lisa.praxis@gmail.com", name: "Lisa" },
        { email: "max.praxis@gmail.com", name: "Max" },
      ],
      { stopScope: "domain" },
    );
    const dovecot = await testDovecot();
    await appendMessages(dovecot, [
      // Someone else at the practice answers for the info@ address.
      mail({ From: "chef@praxis-kern.test", To: OUR, Subject: "Re: Hello Kern", "In-Reply-To": c.messageId["info@praxis-kern.test"] }, "Not interested."),
      mail({ From: "lisa.praxis@gmail.com", To: OUR, Subject: "Re: Hello Lisa" }, "Later maybe."),
    ]);
    expect(await c.sync(dovecot)).toMatchObject({ replies: 2, unmatched: 0 });
    expect(c.nextStep()).toEqual({
      "info@praxis-kern.test": "skipped",
      "termine@praxis-kern.test": "skipped",
      "other@praxis-ost.test": "pending",
      "lisa.praxis@gmail.com": "skipped",
      "max.praxis@gmail.com": "pending",
    });
    // Only the contact who replied is `replied`; the domain's others are just stopped.
    expect(c.contactStatus("termine@praxis-kern.test")).toBe("active");
  });

  it("with stopOnAutoReply, an out-of-office (Exchange headers, 'Automatic reply:' subject) stops the sequence without making the contact replied", async () => {
    const c = await sentCampaign([{ email: "olga@praxis-olga.test", name: "Olga" }], { stopOnAutoReply: true });
    const dovecot = await testDovecot();
    await appendMessages(dovecot, [
      mail(
        { From: "Olga <olga@praxis-olga.test>", To: OUR, Subject: "Automatic reply: Hello Olga", "X-Auto-Response-Suppress": "All", "X-MS-Exchange-Inbox-Rules-Loop": "olga@praxis-olga.test", "Thread-Index": "AQHZabc==" },
        "I am out of the office.",
      ),
    ]);
    expect(await c.sync(dovecot)).toMatchObject({ messages: 1, replies: 0, autoReplies: 1 });
    expect(c.nextStep()["olga@praxis-olga.test"]).toBe("skipped");
    expect(c.contactStatus("olga@praxis-olga.test")).toBe("active");
  });

  it("reads nothing of a Sent folder: copies there are our own", async () => {
    const c = await sentCampaign([{ email: "paul@praxis-paul.test", name: "Paul" }]);
    const dovecot = await testDovecot();
    await appendMessages(dovecot, [mail({ From: "paul@praxis-paul.test", To: OUR, Subject: "Re: Hello Paul", "In-Reply-To": c.messageId["paul@praxis-paul.test"] }, "x")], "Sent");
    const { createReplySync } = await import("../../src/services/replies/reply-runtime.js");
    const { settingsOf } = await import("../helpers/mailbox.js");
    const summary = await createReplySync(c.setup.instance.services, { log: () => {}, settings: settingsOf(dovecot, "Sent") }).syncOnce();
    expect(summary).toMatchObject({ messages: 1, own: 1, replies: 0 });
    expect(c.nextStep()["paul@praxis-paul.test"]).toBe("pending");
  });

  it("a new UIDVALIDITY: the mailbox is read again from its first message, and replies recorded before (same Message-ID) are not recorded twice", async () => {
    const c = await sentCampaign([
      { email: "nina@praxis-nina.test", name: "Nina" },
      { email: "otto@praxis-otto.test", name: "Otto" },
    ]);
    const dovecot = await testDovecot();
    await appendMessages(dovecot, [
      mail({ From: "nina@praxis-nina.test", To: OUR, Subject: "Re: Hello Nina", "Message-ID": "<n1@praxis-nina.test>", "In-Reply-To": c.messageId["nina@praxis-nina.test"] }, "Yes"),
    ]);
    expect(await c.sync(dovecot)).toMatchObject({ messages: 1, replies: 1 });
    // As if the server had rebuilt the folder: what we stored belongs to another UIDVALIDITY.
    const db = c.setup.instance.services.deps.db;
    db.prepare("UPDATE mailbox_cursors SET uid_validity = '1'").run();
    db.prepare("UPDATE campaign_replies SET uid_validity = '1'").run();
    await appendMessages(dovecot, [mail({ From: "otto@praxis-otto.test", To: OUR, Subject: "Re: Hello Otto", "Message-ID": "<o1@praxis-otto.test>" }, "Ok")]);
    expect(await c.sync(dovecot)).toMatchObject({ messages: 2, replies: 1 });
    expect(db.prepare("SELECT COUNT(*) FROM campaign_replies").pluck().get()).toBe(2);
    expect(db.prepare("SELECT COUNT(*) FROM mailbox_cursors").pluck().get()).toBe(2);
  });

  it("keeps the server busy: range n's reply bodies are asked for between range n+1's and n+2's headers, and every reply is read", async () => {
    const people = ["ria", "sam", "tom", "uli"].map((n) => ({ email: `${n}@praxis-${n}.test`, name: n }));
    const c = await sentCampaign(people);
    const dovecot = await testDovecot();
    // Four ranges of 3 messages; each range holds one reply (its last message).
    await appendMessages(
      dovecot,
      people.flatMap((p, i) => [
        mail({ From: "news@letters.test", To: OUR, Subject: `Newsletter ${i}a` }, "issue"),
        mail({ From: "news@letters.test", To: OUR, Subject: `Newsletter ${i}b` }, "issue"),
        mail({ From: p.email, To: OUR, Subject: `Re: Hello ${p.name}`, "In-Reply-To": c.messageId[p.email] }, `Reply of ${p.name}`),
      ]),
    );
    const commands: string[] = [];
    const proxy = await faultyProxy(dovecot.port, {
      cutAfter: (chunk) => {
        const fetch = /UID FETCH (\S+) \(/i.exec(chunk);
        if (fetch) commands.push(`${/HEADER\.FIELDS/i.test(chunk) ? "headers" : "bodies"} ${fetch[1]}`);
        return false;
      },
    });
    // When each range's headers are asked for, how far the cursor is (what has been recorded).
    const cursor = () => (c.setup.instance.services.deps.db.prepare("SELECT MAX(last_uid) FROM mailbox_cursors").pluck().get() as number | null) ?? 0;
    const askedAt: string[] = [];
    const reader = (settings: ImapSettings) => {
      const r = new MailboxReader(settings);
      const headers = r.headers.bind(r);
      r.headers = (from, to) => (askedAt.push(`${from}:${to} at cursor ${cursor()}`), headers(from, to));
      return r;
    };
    expect(await c.sync(dovecot, { port: proxy.port, batchSize: 3, reader })).toMatchObject({ messages: 12, replies: 4 });
    // Range n+2 is queued before range n is recorded, so the server sends it while we record.
    expect(askedAt).toEqual(["1:3 at cursor 0", "4:6 at cursor 0", "7:9 at cursor 0", "10:12 at cursor 3"]);
    // Each range read once, its bodies between the next ranges' headers.
    expect(commands).toEqual(["headers 1:3", "headers 4:6", "bodies 3", "headers 7:9", "bodies 6", "headers 10:12", "bodies 9", "bodies 12"]);
    expect(Object.values(c.nextStep()).every((s) => s === "skipped")).toBe(true);
  });
});
