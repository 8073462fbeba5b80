import { describe, expect, it } from "vitest";
import { headerOf } from "../helpers/smtp-sink.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";

/** How many of the data directory's executions have `status` now. */
function countWith(setup: SendingSetup, status: string): number {
  return setup.instance.services.deps.db.prepare("SELECT count(*) FROM campaign_executions WHERE status = ?").pluck().get(status) as number;
}

/**
 * How the delivery loop takes due mail in batches (docs/architecture.md, "Throughput"):
 * the next batch is claimed while the last one's messages are still on their way, and a
 * claim reads on past due executions it skips until its batch is full.
 */
describe("delivery in batches", () => {
  it("claims the next batch while the last one's messages are on the wire, sends each message once, and runOnce stays one batch", async () => {
    const setup = await sendingSetup();
    for (let i = 0; i < 10; i++) setup.addContact(`owner${i}@clinic${i}.test`);
    const { campaignId } = await setup.launchOneTime();
    // Claimed (`queued`) executions at the moment each message's `sending` is committed.
    const claimedWhileSending: number[] = [];
    const delivery = setup.delivery({ batchSize: 3, concurrency: 1, hooks: { afterRecordSending: () => claimedWhileSending.push(countWith(setup, "queued")) } });

    const result = await delivery.runUntilEmpty();
    expect(result).toMatchObject({ claimed: 10, sent: 10, failed: 0, retried: 0, unconfirmed: 0, waiting: 0 });
    // One message at a time on the wire, yet more claimed beside it than one batch leaves
    // (batchSize − 1): the next batch was claimed before this one had drained.
    expect(claimedWhileSending).toHaveLength(10);
    expect(Math.max(...claimedWhileSending)).toBeGreaterThanOrEqual(3);
    const ids = setup.sink.received.map((m) => headerOf(m.raw, "Message-ID"));
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    expect(setup.instance.services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("sent");

    // One pass without refills (`outreach deliver` without --until-empty): one batch.
    const next = await sendingSetup();
    for (let i = 0; i < 10; i++) next.addContact(`owner${i}@clinic${i}.test`);
    await next.launchOneTime();
    expect(await next.delivery({ batchSize: 3, concurrency: 1 }).runOnce()).toMatchObject({ claimed: 3, sent: 3, waiting: 0 });
    expect(countWith(next, "pending")).toBe(7);
    expect(next.sink.received).toHaveLength(3);
  });

  it("a claim reads on past the due executions it skips until its batch is full", async () => {
    const setup = await sendingSetup();
    for (let i = 0; i < 40; i++) setup.addContact(`owner${i}@clinic${i}.test`);
    await setup.launchOneTime();
    const db = setup.instance.services.deps.db;
    // The first 30 in the order the loop reads due mail: their contacts unsubscribed since the launch.
    const first = db.prepare("SELECT contact_id FROM campaign_executions WHERE status = 'pending' ORDER BY not_before, id LIMIT 30").pluck().all() as string[];
    const unsubscribe = db.prepare("UPDATE contacts SET status = 'unsubscribed' WHERE id = ?");
    for (const id of first) unsubscribe.run(id);

    const result = await setup.delivery({ batchSize: 5, concurrency: 2 }).runOnce();
    expect(result).toMatchObject({ claimed: 5, sent: 5, skipped: 30 });
    expect(countWith(setup, "skipped")).toBe(30);
    expect(countWith(setup, "pending")).toBe(5);
    const sentTo = setup.sink.received.map((m) => m.rcptTo[0]);
    expect(new Set(sentTo).size).toBe(5);
  });
});
