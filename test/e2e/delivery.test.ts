import { simpleParser } from "mailparser";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { describe, expect, it } from "vitest";
import { headerOf, startSmtpSink } from "../helpers/smtp-sink.js";
import { POSTAL_ADDRESS, sendingSetup, type SendingSetup } from "../helpers/sending.js";

function executionsOf(setup: SendingSetup, campaignId: string) {
  return setup.instance.services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 100 }).executions;
}

async function deliverAll(setup: SendingSetup, options: Parameters<SendingSetup["delivery"]>[0] = {}) {
  const delivery = setup.delivery(options);
  return delivery.runUntilEmpty();
}

describe("delivery to a real SMTP server", () => {
  it("sends each launched contact one signed message with the unsubscribe headers, VERP return path and postal address", async () => {
    const setup = await sendingSetup();
    const bea = setup.addContact("bea@clinic-one.test", { name: "Bea" });
    const bob = setup.addContact("bob@clinic-two.test", { name: "<b>Bob & Co</b>" });
    const { campaignId, queued } = await setup.launchOneTime();
    expect(queued).toBe(2);

    const result = await deliverAll(setup);
    expect(result).toMatchObject({ sent: 2, failed: 0, retried: 0, unconfirmed: 0 });
    expect(setup.sink.received).toHaveLength(2);

    const executions = await executionsOf(setup, campaignId);
    expect(executions.map((e) => e.status)).toEqual(["sent", "sent"]);
    for (const execution of executions) {
      const message = setup.sink.received.find((m) => headerOf(m.raw, "Message-ID") === execution.messageId);
      expect(message, `message of ${execution.id}`).toBeDefined();
      expect(execution.messageId).toBe(`<${execution.id}@acme-dental.test>`);
      // VERP: the envelope sender names the execution, on the return-path host.
      expect(message!.mailFrom).toBe(`bounce+${execution.id}@bounce.acme-dental.test`);
      const contactEmail = execution.contactId === bea ? "bea@clinic-one.test" : "bob@clinic-two.test";
      expect(message!.rcptTo).toEqual([contactEmail]);

      const unsubscribe = headerOf(message!.raw, "List-Unsubscribe");
      expect(unsubscribe).toMatch(/^<http:\/\/127\.0\.0\.1:9\/outreach\/u\/[A-Za-z0-9_-]{20,}>$/);
      expect(headerOf(message!.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      expect(headerOf(message!.raw, "From")).toBe("Acme Dental <hello@acme-dental.test>");
      // The token reveals nothing: neither the contact's id nor its address.
      expect(unsubscribe).not.toContain(execution.contactId);
      expect(unsubscribe).not.toContain(contactEmail.split("@")[0]);

      // DKIM verified on the received bytes against the record published in DNS.
      const verified = await dkimVerify(message!.raw, { resolver: setup.resolver as never });
      const signature = verified.results[0] as { status: { result: string }; signingDomain: string; selector: string; signingHeaders: { keys: string } };
      expect(verified.results).toHaveLength(1);
      expect(signature.status.result).toBe("pass");
      expect(signature.signingDomain).toBe("acme-dental.test");
      expect(signature.selector).toBe(setup.domain.dnsRecords.find((r) => r.purpose === "dkim")!.host.split("._domainkey")[0]);
      const signed = signature.signingHeaders.keys.toLowerCase().split(/\s*:\s*/);
      expect(signed).toEqual(expect.arrayContaining(["from", "subject", "message-id", "list-unsubscribe", "list-unsubscribe-post"]));

      const parsed = await simpleParser(message!.raw);
      for (const line of POSTAL_ADDRESS.split("\n")) {
        expect(parsed.text).toContain(line);
        expect(parsed.html).toContain(line);
      }
      expect(parsed.text).toContain(unsubscribe!.slice(1, -1));
    }

    // Values are escaped: the contact's name is text in the HTML part, not markup.
    const bobs = setup.sink.received.find((m) => m.rcptTo[0] === "bob@clinic-two.test")!;
    const bobParsed = await simpleParser(bobs.raw);
    expect(bobParsed.subject).toBe("Hello <b>Bob & Co</b>");
    expect(bobParsed.html).toContain("&lt;b&gt;Bob &amp; Co&lt;/b&gt;");
    expect(bobParsed.html).not.toContain("<b>Bob");
    expect(bobParsed.html).toContain("<strong>new</strong>");
    void bob;

    const detail = setup.instance.services.campaigns.detail(setup.principal, campaignId);
    expect(detail.campaign.status).toBe("sent");
    expect(detail.executionCounts).toMatchObject({ sent: 2, pending: 0, queued: 0, sending: 0 });
    // serve logs each attempt with the execution id.
    for (const execution of executions) expect(setup.logs.some((l) => l.includes(`delivery ${execution.id}`) && l.includes(": sent"))).toBe(true);
  });

  it("retries a 4xx answer with exponential backoff and sends it once the relay takes it", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    let refusals = 2;
    setup.sink.answer = () => (refusals-- > 0 ? { code: 451, text: "4.7.1 greylisted, try again later" } : undefined);
    const { campaignId } = await setup.launchOneTime();
    const delivery = setup.delivery();
    const start = setup.instance.clock.now().getTime();

    const first = await delivery.runUntilEmpty();
    expect(first).toMatchObject({ sent: 0, retried: 1, waiting: 1 });
    let [execution] = await executionsOf(setup, campaignId);
    expect(execution).toMatchObject({ status: "pending", attempts: 1 });
    expect(execution!.error).toContain("451");
    expect(execution!.error).toContain("greylisted");
    expect(new Date(execution!.nextAttemptAt!).getTime() - start).toBe(60_000);

    // Not due yet: nothing is sent early.
    setup.instance.clock.advance(59_000);
    expect(await delivery.runUntilEmpty()).toMatchObject({ claimed: 0, waiting: 1 });

    setup.instance.clock.advance(1_000);
    expect(await delivery.runUntilEmpty()).toMatchObject({ retried: 1 });
    [execution] = await executionsOf(setup, campaignId);
    // The second delay doubles.
    expect(new Date(execution!.nextAttemptAt!).getTime() - setup.instance.clock.now().getTime()).toBe(120_000);

    setup.instance.clock.advance(120_000);
    expect(await delivery.runUntilEmpty()).toMatchObject({ sent: 1 });
    [execution] = await executionsOf(setup, campaignId);
    expect(execution).toMatchObject({ status: "sent", attempts: 3, error: null });
    expect(setup.sink.refused).toHaveLength(2);
    expect(setup.sink.received).toHaveLength(1);
    // The resend keeps its Message-ID: one message, however many tries.
    expect(new Set([...setup.sink.refused, ...setup.sink.received].map((m) => headerOf(m.raw, "Message-ID")))).toEqual(new Set([execution!.messageId]));
  });

  it("gives up on a 4xx after 24 hours of retries", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    setup.sink.answer = () => ({ code: 452, text: "4.2.2 mailbox full" });
    const { campaignId } = await setup.launchOneTime();
    const delivery = setup.delivery();
    for (let i = 0; i < 40; i++) {
      await delivery.runUntilEmpty();
      const [execution] = await executionsOf(setup, campaignId);
      if (execution!.status !== "pending") break;
      setup.instance.clock.set(new Date(execution!.nextAttemptAt!));
    }
    const [execution] = await executionsOf(setup, campaignId);
    expect(execution!.status).toBe("failed");
    expect(execution!.error).toMatch(/gave up after 24 h.*mailbox full/);
    expect(setup.sink.received).toHaveLength(0);
    expect(setup.sink.refused.length).toBeGreaterThan(5);
    expect(setup.instance.services.campaigns.detail(setup.principal, campaignId).campaign.status).toBe("sent");
  });

  it("fails an execution on a 5xx with the relay's answer, and sends the others", async () => {
    const setup = await sendingSetup();
    setup.addContact("gone@clinic-one.test");
    setup.addContact("here@clinic-two.test");
    setup.sink.answer = (m) => (m.rcptTo[0] === "gone@clinic-one.test" ? { code: 550, text: "5.1.1 user unknown" } : undefined);
    const { campaignId } = await setup.launchOneTime();
    expect(await deliverAll(setup)).toMatchObject({ sent: 1, failed: 1, retried: 0 });
    const executions = await executionsOf(setup, campaignId);
    const failed = executions.find((e) => e.status === "failed")!;
    expect(failed.error).toContain("550");
    expect(failed.error).toContain("5.1.1 user unknown");
    expect(failed.attempts).toBe(1);
    expect(executions.filter((e) => e.status === "sent")).toHaveLength(1);
  });

  it("keeps mail pending while the relay cannot be reached, and sends it when it is back", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    const { campaignId } = await setup.launchOneTime();
    const port = setup.sink.port;
    await setup.sink.close();
    const delivery = setup.delivery();
    expect(await delivery.runUntilEmpty()).toMatchObject({ sent: 0, retried: 1, waiting: 1 });
    const [waiting] = executionsOf(setup, campaignId);
    expect(waiting).toMatchObject({ status: "pending", attempts: 1 });
    expect(waiting!.error).toMatch(new RegExp(`cannot reach the SMTP relay 127\\.0\\.0\\.1:${port}`));

    // The relay is back (elsewhere: OUTREACH_SMTP_URL changed) when the retry is due.
    const back = await startSmtpSink();
    const config = setup.instance.services.deps.config;
    config.smtp = { ...config.smtp!, port: back.port };
    setup.instance.clock.set(new Date(waiting!.nextAttemptAt!));
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(back.received).toHaveLength(1);
    expect(executionsOf(setup, campaignId)[0]).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("logs in to a relay that requires it, and treats a refused login as temporary", async () => {
    const good = await sendingSetup({ sinkAuth: { user: "outreach", pass: "s3cret" }, config: {} });
    good.instance.services.deps.config.smtp = { ...good.instance.services.deps.config.smtp!, user: "outreach", pass: "s3cret" };
    good.addContact("bea@clinic-one.test");
    await good.launchOneTime();
    expect(await good.delivery().runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(good.sink.received).toHaveLength(1);

    const bad = await sendingSetup({ sinkAuth: { user: "outreach", pass: "s3cret" } });
    bad.instance.services.deps.config.smtp = { ...bad.instance.services.deps.config.smtp!, user: "outreach", pass: "wrong" };
    bad.addContact("bea@clinic-one.test");
    const { campaignId } = await bad.launchOneTime();
    expect(await bad.delivery().runUntilEmpty()).toMatchObject({ sent: 0, retried: 1 });
    const [execution] = executionsOf(bad, campaignId);
    expect(execution).toMatchObject({ status: "pending" });
    expect(execution!.error).toMatch(/refused the login.*535/);
    expect(bad.sink.received).toHaveLength(0);
  });

  it("a launch scheduled for later waits for its time, then the campaign goes scheduled → sending → sent", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    const { campaignId } = await setup.launchOneTime({ scheduledAt: "2026-11-22T12:00:00Z" });
    const campaigns = setup.instance.services.campaigns;
    expect(campaigns.detail(setup.principal, campaignId).campaign).toMatchObject({ status: "scheduled", scheduledAt: "2026-11-22T12:00:00.000Z" });
    const delivery = setup.delivery();
    expect(await delivery.runUntilEmpty()).toMatchObject({ claimed: 0, waiting: 1, nextAt: "2026-11-22T12:00:00.000Z" });
    expect(setup.sink.received).toHaveLength(0);
    setup.instance.clock.set("2026-11-22T12:00:00.000Z");
    expect(await delivery.runUntilEmpty()).toMatchObject({ sent: 1 });
    expect(campaigns.detail(setup.principal, campaignId).campaign).toMatchObject({ status: "sent", sentAt: "2026-11-22T12:00:00.000Z" });
  });
});
