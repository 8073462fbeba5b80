import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBounceListener } from "../../src/providers/smtp/bounce-listener.js";
import { createBounces } from "../../src/services/index.js";
import { deliveryStatusNotification, sendRaw } from "../helpers/dsn.js";
import { startTestServer } from "../helpers/server.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";
import { headerOf } from "../helpers/smtp-sink.js";

function executionsOf(setup: SendingSetup, campaignId: string) {
  return setup.instance.services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 100 }).executions;
}

/** The bounce listener of `serve --smtp-port`, on port 0, with the product's handler. */
async function bounceListener(setup: SendingSetup) {
  const bounces = createBounces(setup.instance.services, (line) => setup.logs.push(line));
  const listener = await startBounceListener({
    host: "127.0.0.1",
    port: 0,
    accepts: (address) => bounces.accepts(address),
    onReport: (report) => void bounces.handle(report),
    log: (line) => setup.logs.push(line),
  });
  return listener;
}

/** Launch to the contacts and deliver; the received message of each contact by address. */
async function launchAndDeliver(setup: SendingSetup) {
  const launched = await setup.launchOneTime();
  await setup.delivery().runUntilEmpty();
  return launched;
}

describe("bounces", () => {
  it("a 5.x.x DSN to a VERP address bounces the execution and the contact, and suppresses the address; 4.x.x is only recorded", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    const teamId = setup.instance.teamId;
    const gone = setup.addContact("gone@clinic-one.test");
    const slow = setup.addContact("slow@clinic-two.test");
    const { campaignId } = await launchAndDeliver(setup);
    const listener = await bounceListener(setup);
    try {
      const byContact = new Map(executionsOf(setup, campaignId).map((e) => [e.contactId, e]));
      const goneMessage = setup.sink.received.find((m) => m.rcptTo[0] === "gone@clinic-one.test")!;
      const slowMessage = setup.sink.received.find((m) => m.rcptTo[0] === "slow@clinic-two.test")!;

      // The DSN goes to the message's envelope sender, as a receiving MTA would send it.
      await sendRaw(listener.port, goneMessage.mailFrom, deliveryStatusNotification({ to: goneMessage.mailFrom, recipient: "gone@clinic-one.test", status: "5.1.1", diagnostic: "550 5.1.1 user unknown" }));
      await sendRaw(listener.port, slowMessage.mailFrom, deliveryStatusNotification({ to: slowMessage.mailFrom, recipient: "slow@clinic-two.test", status: "4.2.2", diagnostic: "452 4.2.2 mailbox full" }));

      const after = new Map(executionsOf(setup, campaignId).map((e) => [e.contactId, e]));
      expect(after.get(gone)).toMatchObject({ status: "bounced", error: expect.stringMatching(/bounced 5\.1\.1.*user unknown/) });
      expect(after.get(slow)).toMatchObject({ status: "sent", messageId: byContact.get(slow)!.messageId });
      expect(services.contacts.get(teamId, gone).status).toBe("bounced");
      expect(services.contacts.get(teamId, slow).status).toBe("active");
      expect(services.suppressions.has(teamId, "gone@clinic-one.test")).toBe(true);
      expect(services.suppressions.has(teamId, "slow@clinic-two.test")).toBe(false);
      const reports = services.deps.db.prepare("SELECT execution_id, status_code, permanent FROM bounce_reports ORDER BY id").all();
      expect(reports).toEqual([
        { execution_id: after.get(gone)!.id, status_code: "5.1.1", permanent: 1 },
        { execution_id: after.get(slow)!.id, status_code: "4.2.2", permanent: 0 },
      ]);
      // The next launch leaves the bounced address out.
      const next = await setup.launchOneTime();
      expect(next.queued).toBe(1);
    } finally {
      await listener.close();
    }
  });

  it("refuses mail for addresses that are not ours and drops messages that are not delivery reports", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    const { campaignId } = await launchAndDeliver(setup);
    const listener = await bounceListener(setup);
    try {
      await expect(sendRaw(listener.port, "postmaster@bounce.acme-dental.test", "Subject: hi\r\n\r\nhello\r\n")).rejects.toMatchObject({ responseCode: 550 });
      await expect(sendRaw(listener.port, "bounce+exe_doesnotexist00@bounce.acme-dental.test", "Subject: hi\r\n\r\nhello\r\n")).rejects.toMatchObject({ responseCode: 550 });
      const verp = setup.sink.received[0]!.mailFrom;
      // An auto-reply to the return path is accepted (no probing signal) and changes nothing.
      await sendRaw(listener.port, verp, "From: bea@clinic-one.test\r\nSubject: Out of office\r\n\r\nI am away until Monday.\r\n");
      expect(executionsOf(setup, campaignId).map((e) => e.status)).toEqual(["sent"]);
      expect(setup.logs.some((l) => l.includes("without a delivery status report was dropped"))).toBe(true);
    } finally {
      await listener.close();
    }
  });
});

/** Bea got the campaign; the unsubscribe path of her message, on a real HTTP server of the app. */
async function unsubscribeLinkOfDelivered(setup: SendingSetup) {
  const bea = setup.addContact("bea@clinic-one.test");
  await launchAndDeliver(setup);
  const link = headerOf(setup.sink.received[0]!.raw, "List-Unsubscribe")!.slice(1, -1);
  const server = await startTestServer(setup.instance.services);
  // The link names OUTREACH_PUBLIC_URL; the app answers the same path here.
  const path = new URL(link).pathname.replace(/^\/outreach/, "");
  return { bea, server, path };
}

describe("unsubscribe", () => {
  it("the RFC 8058 one-click POST unsubscribes the contact and skips its pending mail in every campaign; links are signed", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    const teamId = setup.instance.teamId;
    const { bea, server, path } = await unsubscribeLinkOfDelivered(setup);
    // Another campaign queued for her, not delivered yet.
    const second = await setup.launchOneTime();

    // Exactly what a mail client sends (RFC 8058 §3.2): no cookies, no auth, this body.
    const res = await fetch(server.url + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click", redirect: "manual" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("You are unsubscribed");
    expect(services.contacts.get(teamId, bea).status).toBe("unsubscribed");
    expect(executionsOf(setup, second.campaignId).map((e) => [e.status, e.error])).toEqual([["skipped", "the contact unsubscribed"]]);
    expect(services.suppressions.has(teamId, "bea@clinic-one.test")).toBe(true);
    expect(await setup.delivery().runUntilEmpty()).toMatchObject({ claimed: 0 });
    expect(setup.sink.received).toHaveLength(1);

    // Repeating it is harmless; a changed or foreign token is a 404 page, not an error.
    expect((await fetch(server.url + path, { method: "POST", body: "List-Unsubscribe=One-Click" })).status).toBe(200);
    const token = path.slice(3);
    const flipped = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
    const tampered = await fetch(`${server.url}/u/${flipped}`, { method: "POST", body: "List-Unsubscribe=One-Click" });
    expect(tampered.status).toBe(404);
    expect(tampered.headers.get("content-type")).toContain("text/html");
    expect((await fetch(`${server.url}/u/not-a-token`)).status).toBe(404);
  });

  describe("the page in a real browser", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: process.env.OUTREACH_TEST_CHROMIUM || "/usr/bin/chromium",
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it("GET shows one accessible button and changes nothing; pressing it unsubscribes", async () => {
      const setup = await sendingSetup();
      const { services } = setup.instance;
      const teamId = setup.instance.teamId;
      const { bea, server, path } = await unsubscribeLinkOfDelivered(setup);
      const url = server.url + path;

      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        const response = await page.goto(url);
        expect(response!.status()).toBe(200);
        expect(await page.title()).toBe("Unsubscribe");
        expect(await page.locator("html").getAttribute("lang")).toBe("en");
        await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Unsubscribe");
        expect(await page.getByRole("main").textContent()).toContain("from Acme Dental");
        const buttons = page.getByRole("button");
        expect(await buttons.count()).toBe(1);
        expect(await buttons.first().textContent()).toBe("Unsubscribe");
        // Loading the page (as a mail scanner would) unsubscribes nobody.
        expect(services.contacts.get(teamId, bea).status).toBe("active");

        await Promise.all([page.waitForURL(url), page.getByRole("button", { name: "Unsubscribe" }).click()]);
        await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("You are unsubscribed");
        expect(await page.getByRole("status").textContent()).toContain("You will not receive these emails from Acme Dental any more.");
        expect(services.contacts.get(teamId, bea).status).toBe("unsubscribed");
        // The page's content security policy blocks nothing it uses.
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
