import { simpleParser } from "mailparser";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { describe, expect, it } from "vitest";
import type { FollowUpInput } from "../../src/core/schemas/sequence.js";
import { createBounces } from "../../src/services/index.js";
import { TRIGGER_SCOPE } from "../../src/services/sending/campaigns.js";
import { stopSequences } from "../../src/store/sequence-stops.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";
import { headerOf, type SinkMessage } from "../helpers/smtp-sink.js";

const MINUTE = 60_000;

function executionsOf(setup: SendingSetup, campaignId: string) {
  return setup.instance.services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 100 }).executions;
}

/** A one-time campaign with follow-ups, launched to every contact. */
async function launchSequence(setup: SendingSetup, followUps: FollowUpInput[], extra: Record<string, unknown> = {}) {
  const services = setup.instance.services;
  const campaign = await services.campaigns.create(setup.principal, {
    name: "Intro",
    type: "one-time",
    subject: "Hello {{ contact.name }}",
    bodyMarkdown: "Dear {{ contact.name }},\n\nwe opened a clinic next door.",
    sendingDomainId: setup.domain.id,
    followUps,
    ...extra,
  });
  services.campaigns.launch(setup.principal, campaign.id, {});
  return campaign.id;
}

async function expectSignedThread(setup: SendingSetup, message: SinkMessage) {
  const verified = await dkimVerify(message.raw, { resolver: setup.resolver as never });
  const signature = verified.results[0] as { status: { result: string }; signingHeaders: { keys: string } };
  expect(signature.status.result).toBe("pass");
  const signed = signature.signingHeaders.keys.toLowerCase().split(/\s*:\s*/);
  expect(signed).toEqual(expect.arrayContaining(["in-reply-to", "references", "subject", "message-id"]));
}

const toOf = (setup: SendingSetup, address: string) => setup.sink.received.filter((m) => m.rcptTo[0] === address);

describe("follow-up steps against a real SMTP server", () => {
  it("sends the follow-up exactly to the contacts whose sequence was not stopped, in the thread, DKIM-signed", async () => {
    const setup = await sendingSetup();
    const { clock, services } = setup.instance;
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    setup.addContact("bob@clinic-two.test", { name: "Bob" });
    const carol = setup.addContact("carol@clinic-three.test", { name: "Carol" });
    const campaignId = await launchSequence(setup, [{ delay: "PT1M", bodyMarkdown: "Just checking in, {{ contact.name }}." }]);

    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 3 });
    const afterFirst = executionsOf(setup, campaignId);
    const followUps = afterFirst.filter((e) => e.step === 1);
    // Step 1 exists for each contact, due one minute after its step 0 was sent.
    expect(followUps).toHaveLength(3);
    for (const f of followUps) {
      const first = afterFirst.find((e) => e.step === 0 && e.contactId === f.contactId)!;
      expect(f).toMatchObject({ status: "pending", nextAttemptAt: new Date(new Date(first.sentAt!).getTime() + MINUTE).toISOString() });
    }
    expect(services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("sending");

    // Carol replies (what the mailbox side records): her sequence stops in that transaction.
    const db = services.deps.db;
    db.transaction(() => stopSequences(db, campaignId, [carol], "replied", clock.now().toISOString())).immediate();

    clock.advance(MINUTE);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 2 });
    expect(setup.sink.received).toHaveLength(5);
    expect(toOf(setup, "carol@clinic-three.test")).toHaveLength(1);

    const executions = executionsOf(setup, campaignId);
    for (const address of ["bea@clinic-one.test", "bob@clinic-two.test"]) {
      const [first, second] = toOf(setup, address);
      const firstId = headerOf(first!.raw, "Message-ID")!;
      expect(headerOf(second!.raw, "Subject")).toBe(`Re: ${headerOf(first!.raw, "Subject")}`);
      expect(headerOf(second!.raw, "In-Reply-To")).toBe(firstId);
      expect(headerOf(second!.raw, "References")).toBe(firstId);
      expect(headerOf(second!.raw, "Message-ID")).not.toBe(firstId);
      const parsed = await simpleParser(second!.raw);
      expect(parsed.text).toContain("Just checking in");
      await expectSignedThread(setup, second!);
    }
    const carolsStep = executions.find((e) => e.contactId === carol && e.step === 1)!;
    expect(carolsStep).toMatchObject({ status: "skipped", error: "replied" });

    const detail = services.campaigns.detail(setup.principal, campaignId);
    expect(detail.campaign.status).toBe("sent");
    expect(detail.executionCounts).toMatchObject({ sent: 5, skipped: 1, pending: 0 });

    // Nothing more is ever due: another run sends nothing.
    clock.advance(60 * MINUTE);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 0, claimed: 0 });
  });

  it("threads every later step with References to all earlier ones; a step with its own subject starts a new thread", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    await launchSequence(setup, [
      { delay: "PT1M", bodyMarkdown: "Second." },
      { delay: "PT2M", bodyMarkdown: "Third." },
      { delay: "P1D", subject: "One last idea, {{ contact.name }}", bodyMarkdown: "Fourth." },
    ]);
    const deliverAfter = async (ms: number) => {
      setup.instance.clock.advance(ms);
      return setup.delivery().runUntilEmpty();
    };
    await deliverAfter(0);
    await deliverAfter(MINUTE);
    // One minute into the two-minute delay: nothing yet.
    expect(await deliverAfter(MINUTE)).toMatchObject({ sent: 0 });
    await deliverAfter(MINUTE);
    await deliverAfter(24 * 60 * MINUTE);
    const [m0, m1, m2, m3] = setup.sink.received;
    expect(setup.sink.received).toHaveLength(4);
    const id = (m: SinkMessage) => headerOf(m.raw, "Message-ID")!;
    expect(headerOf(m2!.raw, "In-Reply-To")).toBe(id(m1!));
    expect(headerOf(m2!.raw, "References")!.split(/\s+/)).toEqual([id(m0!), id(m1!)]);
    expect(headerOf(m2!.raw, "Subject")).toBe("Re: Hello Bea");
    await expectSignedThread(setup, m2!);
    expect(headerOf(m3!.raw, "Subject")).toBe("One last idea, Bea");
    expect(headerOf(m3!.raw, "In-Reply-To")).toBeUndefined();
    expect(headerOf(m3!.raw, "References")).toBeUndefined();
  });

  it("a bounce or an unsubscribe stops the contact's later steps in the transaction that records it", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    const bea = setup.addContact("bea@clinic-one.test", { name: "Bea" });
    const bob = setup.addContact("bob@clinic-two.test", { name: "Bob" });
    setup.addContact("cid@clinic-three.test", { name: "Cid" });
    const campaignId = await launchSequence(setup, [{ delay: "PT1M", bodyMarkdown: "Again." }]);
    await setup.delivery().runUntilEmpty();
    const first = (contactId: string) => executionsOf(setup, campaignId).find((e) => e.contactId === contactId && e.step === 0)!;

    createBounces(services, () => {}).handle({ recipient: `bounce+${first(bea).id}@bounce.acme-dental.test`, status: "5.1.1", action: "failed", diagnostic: "user unknown" });
    const bobsMessage = toOf(setup, "bob@clinic-two.test")[0]!;
    const token = /\/u\/([A-Za-z0-9_-]+)>$/.exec(headerOf(bobsMessage.raw, "List-Unsubscribe")!)![1]!;
    services.unsubscribe.unsubscribe(token);

    const db = services.deps.db;
    const stops = db.prepare("SELECT contact_id, reason FROM sequence_stops WHERE campaign_id = ? ORDER BY reason").all(campaignId);
    expect(stops).toEqual([
      { contact_id: bea, reason: "bounced" },
      { contact_id: bob, reason: "unsubscribed" },
    ]);
    const stepOne = (contactId: string) => executionsOf(setup, campaignId).find((e) => e.contactId === contactId && e.step === 1)!;
    expect(stepOne(bea).status).toBe("skipped");
    // Cid's follow-up is still open: the campaign goes on.
    expect(services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("sending");
    expect(stepOne(bob).status).toBe("skipped");

    clock.advance(MINUTE);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(setup.sink.received.map((m) => m.rcptTo[0])).toEqual(expect.arrayContaining(["cid@clinic-three.test"]));
    expect(toOf(setup, "cid@clinic-three.test")).toHaveLength(2);
    const detail = services.campaigns.detail(setup.principal, campaignId);
    expect(detail.campaign.status).toBe("sent");
    expect(detail.unsubscribed).toBe(1);
    expect(detail.executionCounts).toMatchObject({ bounced: 1, skipped: 2 });
  });

  it("a cancelled campaign sends nothing more; the message whose DATA had begun finishes and grows no next step", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    setup.addContact("bob@clinic-two.test", { name: "Bob" });
    const campaignId = await launchSequence(setup, [{ delay: "PT1M", bodyMarkdown: "Again." }]);
    let cancelled: number | undefined;
    // Cancel while the first message is on the wire (its DATA begun, `sending` recorded).
    const delivery = setup.delivery({
      concurrency: 1,
      batchSize: 2,
      hooks: {
        afterRecordSending: () => {
          if (cancelled === undefined) cancelled = services.campaignExecutions.cancel(setup.principal, campaignId).cancelled;
        },
      },
    });
    const result = await delivery.runUntilEmpty();
    // The second message was claimed (queued) and is cancelled; the one in flight finishes.
    expect(cancelled).toBe(1);
    expect(result).toMatchObject({ sent: 1 });
    expect(setup.sink.received).toHaveLength(1);
    const executions = executionsOf(setup, campaignId);
    expect(executions.map((e) => `${e.step}:${e.status}`).sort()).toEqual(["0:cancelled", "0:sent"]);

    clock.advance(10 * MINUTE);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ claimed: 0, sent: 0 });
    expect(setup.sink.received).toHaveLength(1);
    expect(services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("cancelled");
    // Cancelling again answers the same campaign.
    expect(services.campaignExecutions.cancel(setup.principal, campaignId)).toMatchObject({ cancelled: 0, campaign: { status: "cancelled" } });
  });

  it("waits for the send window in each contact's time zone (else the brand's), on the injected clock", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    services.brand.update(setup.principal, { timeZone: "Europe/Berlin" });
    const ny = setup.addContact("ny@clinic-one.test", { name: "Nia" });
    services.contacts.update(setup.instance.teamId, ny, { timeZone: "America/New_York" });
    const berlin = setup.addContact("berlin@clinic-two.test", { name: "Ben" });
    // The clock starts on Sunday 2026-11-22 10:00Z: outside a Monday-to-Friday window everywhere.
    const campaignId = await launchSequence(setup, [{ delay: "PT1M", bodyMarkdown: "Again." }], {
      sendWindow: { days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00", timeZone: "contact" },
    });
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 0 });
    const due = (contactId: string, step = 0) => executionsOf(setup, campaignId).find((e) => e.contactId === contactId && e.step === step)!;
    expect(due(berlin).nextAttemptAt).toBe("2026-11-23T08:00:00.000Z"); // 09:00 CET
    expect(due(ny).nextAttemptAt).toBe("2026-11-23T14:00:00.000Z"); // 09:00 EST
    expect(due(ny).error).toMatch(/outside the send window .*America\/New_York/);

    clock.set("2026-11-23T08:00:00.000Z");
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(setup.sink.received.map((m) => m.rcptTo[0])).toEqual(["berlin@clinic-two.test"]);
    // Berlin's follow-up is due at 08:01Z, inside the window: it goes a minute later.
    clock.set("2026-11-23T08:01:00.000Z");
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });

    // Sent at 16:59:30 New York time, the follow-up falls after 17:00 there: next morning.
    clock.set("2026-11-23T21:59:30.000Z");
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    // Known when the step is created: due at the next opening, not at 22:00:30Z.
    expect(due(ny, 1)).toMatchObject({ nextAttemptAt: "2026-11-24T14:00:00.000Z", error: expect.stringMatching(/outside the send window/) });
    clock.set("2026-11-23T22:00:30.000Z");
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 0 });
    expect(due(ny, 1).nextAttemptAt).toBe("2026-11-24T14:00:00.000Z");
  });

  it("lifetime campaigns run the steps per triggered contact; a pause cancels later steps, a resume continues them", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    const bea = setup.addContact("bea@clinic-one.test", { name: "Bea" });
    const bob = setup.addContact("bob@clinic-two.test", { name: "Bob" });
    const campaign = await services.campaigns.create(setup.principal, {
      name: "Welcome",
      type: "lifetime",
      subject: "Welcome {{ contact.name }}",
      bodyMarkdown: "Hi.",
      sendingDomainId: setup.domain.id,
      followUps: [
        { delay: "PT1M", bodyMarkdown: "Second." },
        { delay: "PT1M", bodyMarkdown: "Third." },
      ],
    });
    services.campaigns.changeLifecycle(setup.principal, campaign.id, { status: "active" });
    const key = { ...setup.principal, kind: "key" as const, userId: null, role: null, scopes: [TRIGGER_SCOPE] };
    services.campaigns.trigger(key, campaign.id, bea);
    await setup.delivery().runUntilEmpty();
    clock.advance(MINUTE);
    services.campaigns.trigger(key, campaign.id, bob);
    await setup.delivery().runUntilEmpty();
    // Bea: steps 0 and 1 sent; Bob: step 0 sent. Each has its next step pending.
    const steps = () =>
      executionsOf(setup, campaign.id)
        .map((e) => `${e.contactId === bea ? "bea" : "bob"}${e.step}:${e.status}`)
        .sort();
    expect(steps()).toEqual(["bea0:sent", "bea1:sent", "bea2:pending", "bob0:sent", "bob1:pending"]);

    services.campaigns.changeLifecycle(setup.principal, campaign.id, { status: "paused" });
    expect(steps()).toEqual(["bea0:sent", "bea1:sent", "bea2:cancelled", "bob0:sent", "bob1:cancelled"]);
    clock.advance(10 * MINUTE);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ claimed: 0 });

    // Resumed: the cancelled steps were due while paused, so they go out now, once.
    services.campaigns.changeLifecycle(setup.principal, campaign.id, { status: "active" });
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 2 });
    clock.advance(MINUTE);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(steps()).toEqual(["bea0:sent", "bea1:sent", "bea2:sent", "bob0:sent", "bob1:sent", "bob2:sent"]);
    expect(setup.sink.received).toHaveLength(6);
  });

  it("a step recorded as sent without its successor gets it from the recovery sweep, exactly once", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    const campaignId = await launchSequence(setup, [{ delay: "PT1M", bodyMarkdown: "Again." }]);
    await setup.delivery().runUntilEmpty();
    const db = services.deps.db;
    // What a path that records `sent` without creating the next step would leave behind.
    expect(db.prepare("DELETE FROM campaign_executions WHERE campaign_id = ? AND step = 1").run(campaignId).changes).toBe(1);
    const stepOnes = () => db.prepare("SELECT count(*) FROM campaign_executions WHERE campaign_id = ? AND step = 1").pluck().get(campaignId);
    for (let run = 0; run < 3; run++) {
      const delivery = setup.delivery();
      expect(delivery.acquire()).toEqual({ ok: true });
      delivery.release();
      expect(stepOnes()).toBe(1);
    }
    expect(setup.logs.filter((l) => l.includes("follow-up step(s) created"))).toEqual(["delivery recovery: 1 follow-up step(s) created"]);
  });

  it("a window keeps its local hours across the spring and autumn clock changes (Berlin, New York), on the injected clock", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    const berlin = setup.addContact("berlin@clinic-one.test", { name: "Ben" });
    services.contacts.update(setup.instance.teamId, berlin, { timeZone: "Europe/Berlin" });
    const window = { days: ["mon", "tue", "wed", "thu", "fri"] as const, start: "09:00", end: "17:00", timeZone: "contact" as const };
    const stepZero = (campaignId: string) => executionsOf(setup, campaignId).find((e) => e.step === 0)!;
    const launchAt = async (iso: string) => {
      clock.set(iso);
      return launchSequence(setup, [], { sendWindow: { ...window, days: [...window.days] } });
    };

    // Friday 2026-03-27 18:00 CET; the clocks go forward on Sunday: Monday 09:00 CEST is 07:00Z.
    const march = await launchAt("2026-03-27T17:00:00.000Z");
    await setup.delivery().runUntilEmpty();
    expect(stepZero(march).nextAttemptAt).toBe("2026-03-30T07:00:00.000Z");
    clock.set("2026-03-30T06:59:00.000Z");
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 0 });
    clock.set("2026-03-30T07:00:00.000Z");
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });

    // Friday 2026-10-23 18:00 CEST; the clocks go back on Sunday: Monday 09:00 CET is 08:00Z.
    const october = await launchAt("2026-10-23T16:00:00.000Z");
    await setup.delivery().runUntilEmpty();
    expect(stepZero(october).nextAttemptAt).toBe("2026-10-26T08:00:00.000Z");

    // New York: Friday 2026-03-06 18:00 EST → Monday 09:00 EDT (13:00Z); Friday 2026-10-30 18:00 EDT → Monday 09:00 EST (14:00Z).
    services.contacts.update(setup.instance.teamId, berlin, { timeZone: "America/New_York" });
    const spring = await launchAt("2026-03-06T23:00:00.000Z");
    await setup.delivery().runUntilEmpty();
    expect(stepZero(spring).nextAttemptAt).toBe("2026-03-09T13:00:00.000Z");
    const autumn = await launchAt("2026-10-30T22:00:00.000Z");
    await setup.delivery().runUntilEmpty();
    expect(stepZero(autumn).nextAttemptAt).toBe("2026-11-02T14:00:00.000Z");
  });

  it("a one-time campaign whose last open step is stopped is sent at once", async () => {
    const setup = await sendingSetup();
    const { services, clock } = setup.instance;
    const bea = setup.addContact("bea@clinic-one.test", { name: "Bea" });
    const campaignId = await launchSequence(setup, [{ delay: "P2D", bodyMarkdown: "Again." }]);
    await setup.delivery().runUntilEmpty();
    expect(services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("sending");
    const db = services.deps.db;
    db.transaction(() => stopSequences(db, campaignId, [bea], "replied", clock.now().toISOString())).immediate();
    const detail = services.campaigns.detail(setup.principal, campaignId);
    expect(detail.campaign).toMatchObject({ status: "sent", sentAt: clock.now().toISOString() });
    expect(detail.executionCounts).toMatchObject({ sent: 1, skipped: 1, pending: 0 });
  });
});
