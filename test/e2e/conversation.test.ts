import { describe, expect, it } from "vitest";
import { createReplySync } from "../../src/services/replies/reply-runtime.js";
import { appendMessages, mail, mailboxState, settingsOf, testDovecot } from "../helpers/mailbox.js";
import { sendingSetup } from "../helpers/sending.js";
import { headerOf } from "../helpers/smtp-sink.js";
import { startTestServer } from "../helpers/server.js";

const OUR = "Acme Dental <hello@acme-dental.test>";

/**
 * Issue 23's "done when", both halves together: a two-step campaign (the follow-up one minute
 * after, in the thread) to four contacts; one replies in the thread, one replies without
 * In-Reply-To ("AW: …"), one is out of office, one stays silent. The replies are read from a
 * real mailbox (Dovecot) by the product's own sync; the follow-up then goes exactly to the
 * silent one and the out-of-office one, threaded, through the real delivery path.
 */
describe("a conversation: follow-ups stop for the contacts who replied", () => {
  it("sends the follow-up to the silent and the out-of-office contact only, threaded; lists the replies; leaves the mailbox untouched", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    const people = {
      anna: setup.addContact("anna@praxis-anna.test", { name: "Anna" }),
      bernd: setup.addContact("bernd@zahnarzt-bernd.test", { name: "Bernd" }),
      carla: setup.addContact("carla@smile-carla.test", { name: "Carla" }),
      dora: setup.addContact("dora@dental-dora.test", { name: "Dora" }),
    };
    const { campaignId } = await setup.launchOneTime({
      body: "Dear {{ contact.name }},\n\nour new clinic is open.",
      followUps: [{ delay: "PT1M", bodyMarkdown: "Just checking in, {{ contact.name }}." }],
    });
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 4 });
    const step0 = Object.fromEntries(setup.sink.received.map((m) => [m.rcptTo[0]!, headerOf(m.raw, "Message-ID")!]));

    const dovecot = await testDovecot();
    await appendMessages(dovecot, [
      mail(
        { From: "Anna <anna@praxis-anna.test>", To: OUR, Subject: "Re: Hello Anna", "Message-ID": "<a@praxis-anna.test>", "In-Reply-To": step0["anna@praxis-anna.test"], References: step0["anna@praxis-anna.test"] },
        "Yes, call me on Monday.\r\n\r\nOn 22.11.26 10:00, Acme Dental wrote:\r\n> Dear Anna,",
      ),
      mail({ From: "Bernd <bernd@zahnarzt-bernd.test>", To: OUR, Subject: "AW: Hello Bernd", "Message-ID": "<b@zahnarzt-bernd.test>" }, "Danke, kein Interesse.\r\n\r\nAm 22.11.2026 schrieb Acme Dental:\r\n> Dear Bernd,"),
      mail(
        { From: "carla@smile-carla.test", To: OUR, Subject: "Automatic reply: Hello Carla", "Auto-Submitted": "auto-replied", "Message-ID": "<ooo@smile-carla.test>", "In-Reply-To": step0["carla@smile-carla.test"] },
        "I am away until 1 December.",
      ),
    ]);
    const before = await mailboxState(dovecot);
    const sync = createReplySync(services, { log: (line) => setup.logs.push(line), settings: settingsOf(dovecot) });
    expect(await sync.syncOnce({ attempts: 3 })).toMatchObject({ messages: 3, replies: 2, autoReplies: 1 });
    expect(await mailboxState(dovecot)).toEqual(before);

    clock.advance(2 * 60_000);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 2 });
    const followUps = setup.sink.received.slice(4);
    expect(followUps.map((m) => m.rcptTo[0]).sort()).toEqual(["carla@smile-carla.test", "dora@dental-dora.test"]);
    for (const m of followUps) {
      const to = m.rcptTo[0]!;
      const name = to.startsWith("carla") ? "Carla" : "Dora";
      expect(headerOf(m.raw, "Subject")).toBe(`Re: Hello ${name}`);
      expect(headerOf(m.raw, "In-Reply-To")).toBe(step0[to]);
      expect(headerOf(m.raw, "References")).toBe(step0[to]);
    }
    const executions = services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 100 }).executions;
    const stepOne = (id: string) => executions.find((e) => e.contactId === id && e.step === 1)?.status;
    expect([stepOne(people.anna), stepOne(people.bernd), stepOne(people.carla), stepOne(people.dora)]).toEqual(["skipped", "skipped", "sent", "sent"]);

    // Through the API: the replies, and the funnel's counts.
    const server = await startTestServer(services);
    const replies = (await (await server.request(`/api/v1/campaigns/${campaignId}/replies`, { token: setup.instance.token })).json()) as {
      replies: Array<{ from: string; autoReply: boolean; step: number }>;
    };
    expect(replies.replies.map((r) => [r.from, r.autoReply, r.step]).sort()).toEqual([
      ["anna@praxis-anna.test", false, 0],
      ["bernd@zahnarzt-bernd.test", false, 0],
      ["carla@smile-carla.test", true, 0],
    ]);
    const detail = (await (await server.request(`/api/v1/campaigns/${campaignId}`, { token: setup.instance.token })).json()) as {
      executionCounts: Record<string, number>;
    };
    expect(detail.executionCounts).toMatchObject({ sent: 6, skipped: 2, replied: 2 });
  }, 120_000);
});
