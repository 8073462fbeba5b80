import { describe, expect, it } from "vitest";
import { cliEnv } from "../helpers/cli.js";
import { builtBin } from "../helpers/built-bin.js";
import { runBin } from "../helpers/serve-bin.js";
import { crashAt } from "../helpers/delivery-crash.js";
import { sendingSetup } from "../helpers/sending.js";
import { headerOf } from "../helpers/smtp-sink.js";

/**
 * The recovery rule (docs/architecture.md, "Delivery"), with real processes killed by
 * SIGKILL at each step of a delivery against a real SMTP server, then `outreach deliver
 * --until-empty` (the built binary) taking over the data directory.
 */
describe("a delivery killed at any step sends nothing twice and loses nothing silently", () => {
  it.each([
    // hook, status after recovery, unconfirmed, messages the relay has in the end
    ["afterClaim", "sent", false, 1],
    ["beforeRecordSending", "sent", false, 1],
    ["afterRecordSending", "sent", true, 0],
    ["afterRelayAnswer", "sent", true, 1],
  ] as const)("killed at %s: recovered as %s (unconfirmed %s), %i message at the relay", { timeout: 90_000 }, async (hook, status, unconfirmed, atRelay) => {
    await builtBin();
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    const { campaignId } = await setup.launchOneTime();
    const env = cliEnv({ OUTREACH_SMTP_URL: `smtp://127.0.0.1:${setup.sink.port}`, OUTREACH_PUBLIC_URL: "http://127.0.0.1:9/outreach", OUTREACH_SEND_PER_MINUTE: "0" });

    const crash = await crashAt(setup.instance.dataDir, hook, env);
    expect(crash.signal, crash.stderr).toBe("SIGKILL");
    expect(crash.stderr).toContain(`killed at ${hook}`);
    const [during] = setup.instance.services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 10 }).executions;
    // Left claimed: `queued` before the point of no return, `sending` after it.
    expect(during!.status).toBe(hook === "afterClaim" || hook === "beforeRecordSending" ? "queued" : "sending");

    // The next run finds the dead holder's lock, recovers, delivers what is left.
    const recovery = await runBin(["deliver", "--until-empty", "--data-dir", setup.instance.dataDir], env);
    expect(recovery.code, recovery.stderr).toBe(0);
    expect(recovery.stderr).toMatch(/delivery recovery: (1 claimed but unsent execution\(s\) queued again, 0|0 claimed but unsent execution\(s\) queued again, 1) marked sent \(unconfirmed\)/);

    const [after] = setup.instance.services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 10 }).executions;
    expect(after).toMatchObject({ status, unconfirmed });
    if (unconfirmed) expect(after!.error).toMatch(/^unconfirmed: .*not sent again/);
    expect(setup.sink.received).toHaveLength(atRelay);
    for (const message of setup.sink.received) expect(headerOf(message.raw, "Message-ID")).toBe(after!.messageId);

    // Nothing is left open for a later run to send again, and the campaign is done.
    const detail = setup.instance.services.campaigns.detail(setup.principal, campaignId);
    expect(detail.executionCounts).toMatchObject({ pending: 0, queued: 0, sending: 0, sent: 1 });
    expect(detail.campaign.status).toBe("sent");
  });
});
