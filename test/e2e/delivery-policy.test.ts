import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/services/access/auth.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";

function executionsOf(setup: SendingSetup, campaignId: string) {
  return setup.instance.services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 100 }).executions;
}

/** The most messages sent within any 60-second window (sentAt times). */
function busiestMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0; i < sorted.length; i++) best = Math.max(best, sorted.filter((t) => t >= sorted[i]! && t < sorted[i]! + 60_000).length);
  return best;
}

/** A lifetime campaign, active, with one contact triggered (as a team API key with the scope would). */
async function triggeredLifetime(setup: SendingSetup, contactId: string) {
  const { services } = setup.instance;
  const campaign = await services.campaigns.create(setup.principal, {
    name: "Welcome",
    type: "lifetime",
    subject: "Welcome {{ contact.name }}",
    bodyMarkdown: "Hello {{ contact.name }}",
    sendingDomainId: setup.domain.id,
  });
  services.campaigns.changeLifecycle(setup.principal, campaign.id, { status: "active" });
  const key: Principal = { kind: "key", tokenId: "tok_test", userId: null, teamId: setup.instance.teamId, role: null, scopes: ["campaigns:trigger"] };
  const { execution } = services.campaigns.trigger(key, campaign.id, contactId);
  return { campaignId: campaign.id, executionId: execution.id };
}

describe("delivery policy: throttles, the daily cap, cancelling and skipping", () => {
  it("spreads a launch over minutes at OUTREACH_SEND_PER_MINUTE per sending domain", async () => {
    const setup = await sendingSetup({ config: { sendPerMinute: 2 } });
    for (let i = 0; i < 5; i++) setup.addContact(`owner${i}@clinic${i}.test`);
    const { campaignId } = await setup.launchOneTime();
    const delivery = setup.delivery();

    const first = await delivery.runOnce();
    expect(first).toMatchObject({ claimed: 2, sent: 2 });
    const waiting = executionsOf(setup, campaignId).filter((e) => e.status === "pending");
    expect(waiting).toHaveLength(3);
    for (const e of waiting) expect(e.error).toMatch(/throttled: 2 messages a minute from acme-dental\.test/);

    // --until-empty waits out the throttle (the manual clock moves when it sleeps).
    const rest = await delivery.runUntilEmpty();
    expect(rest).toMatchObject({ sent: 3, waiting: 0 });
    const sent = executionsOf(setup, campaignId);
    expect(sent.every((e) => e.status === "sent")).toBe(true);
    expect(busiestMinute(sent.map((e) => new Date(e.sentAt!).getTime()))).toBe(2);
    expect(setup.sink.received).toHaveLength(5);
  });

  it("sends at most OUTREACH_SEND_PER_RECIPIENT_DOMAIN_PER_MINUTE to one recipient domain, others go on", async () => {
    const setup = await sendingSetup({ config: { sendPerRecipientDomainPerMinute: 1 } });
    for (let i = 0; i < 3; i++) setup.addContact(`person${i}@bigmail.test`);
    setup.addContact("solo@other.test");
    const { campaignId } = await setup.launchOneTime();
    const delivery = setup.delivery();
    expect(await delivery.runOnce()).toMatchObject({ sent: 2 });
    expect(setup.sink.received.map((m) => m.rcptTo[0]!.split("@")[1]).sort()).toEqual(["bigmail.test", "other.test"]);
    expect(executionsOf(setup, campaignId).filter((e) => e.status === "pending").map((e) => e.error)).toEqual([
      expect.stringMatching(/throttled: 1 messages a minute to one recipient domain/),
      expect.stringMatching(/throttled: 1 messages a minute to one recipient domain/),
    ]);
    await delivery.runUntilEmpty();
    const sentAt = executionsOf(setup, campaignId)
      .filter((e) => e.status === "sent")
      .map((e) => new Date(e.sentAt!).getTime());
    expect(sentAt).toHaveLength(4);
    const toBig = setup.sink.received.filter((m) => m.rcptTo[0]!.endsWith("@bigmail.test"));
    expect(toBig).toHaveLength(3);
    // The three to one domain are a minute apart at least.
    const big = executionsOf(setup, campaignId)
      .filter((e) => e.status === "sent" && setup.instance.services.contacts.get(setup.instance.teamId, e.contactId).email.endsWith("@bigmail.test"))
      .map((e) => new Date(e.sentAt!).getTime());
    expect(busiestMinute(big)).toBe(1);
  });

  it("stops at the plan's daily cap and resumes at midnight UTC", async () => {
    const setup = await sendingSetup();
    setup.instance.services.plans.set("self-hosted", { dailySends: 2 });
    for (let i = 0; i < 3; i++) setup.addContact(`owner${i}@clinic${i}.test`);
    const { campaignId } = await setup.launchOneTime();
    const delivery = setup.delivery();
    const day1 = await delivery.runUntilEmpty();
    expect(day1).toMatchObject({ sent: 2, waiting: 1, nextAt: "2026-11-23T00:00:00.000Z" });
    const [held] = executionsOf(setup, campaignId).filter((e) => e.status === "pending");
    expect(held!.error).toMatch(/daily cap of 2 messages/);
    expect(setup.sink.received).toHaveLength(2);

    setup.instance.clock.set("2026-11-23T00:00:00.000Z");
    expect(await delivery.runUntilEmpty()).toMatchObject({ sent: 1, waiting: 0 });
    expect(setup.sink.received).toHaveLength(3);
    expect(setup.instance.services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("sent");
  });

  it("pausing or archiving a lifetime campaign cancels its pending mail, and a claimed message is never completed", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    const a = await triggeredLifetime(setup, setup.addContact("a@clinic-a.test"));
    services.campaigns.changeLifecycle(setup.principal, a.campaignId, { status: "paused" });
    expect(executionsOf(setup, a.campaignId).map((e) => e.status)).toEqual(["cancelled"]);

    const b = await triggeredLifetime(setup, setup.addContact("b@clinic-b.test"));
    services.campaigns.changeLifecycle(setup.principal, b.campaignId, { status: "archived" });
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ claimed: 0, sent: 0 });

    // Paused after the loop claimed the message, before its DATA ended: the final dot is
    // never sent, so the relay discards it.
    const c = await triggeredLifetime(setup, setup.addContact("c@clinic-c.test"));
    const delivery = setup.delivery({ hooks: { afterClaim: () => void services.campaigns.changeLifecycle(setup.principal, c.campaignId, { status: "paused" }) } });
    expect(await delivery.runUntilEmpty()).toMatchObject({ claimed: 1, sent: 0 });
    expect(executionsOf(setup, c.campaignId).map((e) => e.status)).toEqual(["cancelled"]);
    expect(setup.sink.received).toHaveLength(0);
    expect(setup.logs.some((l) => l.includes(c.executionId) && l.includes("cancelled or skipped meanwhile"))).toBe(true);

    // An active one delivers.
    const d = await triggeredLifetime(setup, setup.addContact("d@clinic-d.test"));
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(executionsOf(setup, d.campaignId).map((e) => e.status)).toEqual(["sent"]);
    expect(setup.sink.received.map((m) => m.rcptTo[0])).toEqual(["d@clinic-d.test"]);
  });

  it("never mails unsubscribed, bounced or suppressed contacts: not queued at launch, skipped at delivery", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    const teamId = setup.instance.teamId;
    const now = setup.instance.clock.now().toISOString();
    setup.addContact("keep@clinic.test");
    services.contacts.add(teamId, { email: "left@clinic.test", name: "Left", status: "unsubscribed" });
    services.contacts.add(teamId, { email: "dead@clinic.test", name: "Dead", status: "bounced" });
    // Suppressed (it unsubscribed once), deleted, then imported again by a later search.
    services.suppressions.add(teamId, "again@clinic.test", "unsubscribed", now);
    setup.addContact("again@clinic.test");
    const later = setup.addContact("later@clinic.test");
    const suppressedLater = setup.addContact("late-bounce@clinic.test");

    const { campaignId, queued } = await setup.launchOneTime();
    expect(queued).toBe(3);
    // After the launch: one unsubscribes (through its link), one's address is suppressed (a bounce in another campaign).
    const link = services.messages.unsubscribeUrl(campaignId, later);
    expect(services.unsubscribe.unsubscribe(link.slice(link.lastIndexOf("/") + 1))).toEqual({ brandName: "Acme Dental" });
    services.suppressions.add(teamId, "late-bounce@clinic.test", "bounced", now);
    void suppressedLater;

    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1, skipped: 1 });
    expect(setup.sink.received.map((m) => m.rcptTo[0])).toEqual(["keep@clinic.test"]);
    const skipped = executionsOf(setup, campaignId).filter((e) => e.status === "skipped");
    // The unsubscribe skipped its execution at once; the suppression at delivery time.
    expect(skipped.map((e) => e.error).sort()).toEqual([expect.stringMatching(/suppression list/), "the contact unsubscribed"]);
    expect(services.campaigns.detail(setup.principal, campaignId).executionCounts).toMatchObject({ sent: 1, skipped: 2 });
  });

  it("holds mail while the brand has no postal address, and launch refuses it with 409", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    setup.addContact("keep@clinic.test");
    const { campaignId } = await setup.launchOneTime();
    // Cleared after the launch: nothing leaves without the footer's address.
    services.brand.update(setup.principal, { postalAddress: null });
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 0, waiting: 1 });
    expect(executionsOf(setup, campaignId)[0]!.error).toMatch(/no postalAddress/);
    expect(setup.sink.received).toHaveLength(0);
    await expect(setup.launchOneTime()).rejects.toMatchObject({ message: expect.stringMatching(/postalAddress/) });

    services.brand.update(setup.principal, { postalAddress: "1 Harbour Road, Leith" });
    setup.instance.clock.advance(5 * 60_000);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(setup.sink.received[0]!.raw.toString()).toContain("1 Harbour Road, Leith");
  });
});
