import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";

/** The CLI in-process on the setup's data directory, with its clock and settings. */
function cliOn(setup: SendingSetup) {
  const env = cliEnv();
  const deps = { clock: setup.instance.clock, serverConfig: setup.instance.services.deps.config };
  return (argv: string[]) => runCli(["--data-dir", setup.instance.dataDir, "--token", setup.instance.token, ...argv], { env, deps });
}

function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

describe("outreach campaigns: follow-ups, windows, cancel, unconfirmed", () => {
  it("creates a sequence from --follow-up files, edits it, shows its funnel, launches, delivers and cancels", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    setup.addContact("bob@clinic-two.test", { name: "Bob" });
    const cli = cliOn(setup);
    const threaded = file("second.md", "Just checking in, {{ contact.name }}.\n");
    const ownSubject = file("third.md", "Subject: One last idea for {{ contact.name }}\n\nThird and last.\n");
    const body = file("body.md", "Hi {{ contact.name }}.\n");

    const created = await cli([
      "campaigns", "create", "--type", "one-time", "--name", "Intro", "--subject", "Hello {{ contact.name }}", "--body-file", body,
      "--follow-up", `PT1M:${threaded}`, "--follow-up", `P3D:${ownSubject}`,
      "--send-window", "mon-fri 09:00-17:00 Europe/Berlin", "--stop-scope", "domain", "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const campaign = JSON.parse(created.stdout).campaign;
    expect(campaign).toMatchObject({
      followUps: [
        { delay: "PT1M", subject: null, bodyMarkdown: "Just checking in, {{ contact.name }}.\n" },
        { delay: "P3D", subject: "One last idea for {{ contact.name }}", bodyMarkdown: "Third and last.\n" },
      ],
      sendWindow: { days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00", timeZone: "Europe/Berlin" },
      stopScope: "domain",
      stopOnAutoReply: false,
    });

    // Bad flags are usage errors naming the flag; a bad delay the server's 400 naming the step.
    expect((await cli(["campaigns", "edit", campaign.id, "--follow-up", "PT1M"])).stderr).toMatch(/--follow-up PT1M: write DELAY:FILE/);
    expect((await cli(["campaigns", "edit", campaign.id, "--send-window", "weekdays 9-5"])).stderr).toMatch(/--send-window/);
    const badDelay = await cli(["campaigns", "edit", campaign.id, "--follow-up", `PT30S:${threaded}`]);
    expect(badDelay.code).not.toBe(0);
    expect(badDelay.stderr).toMatch(/followUps\[0\]\.delay must be at least PT1M/);

    const edited = await cli(["campaigns", "edit", campaign.id, "--follow-up", `PT1M:${threaded}`, "--send-window", "none", "--stop-on-auto-reply", "--sending-domain", setup.domain.id, "--json"]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout).campaign).toMatchObject({ followUps: [{ delay: "PT1M" }], sendWindow: null, stopOnAutoReply: true });

    expect((await cli(["campaigns", "launch", campaign.id])).code).toBe(0);
    expect((await cli(["deliver", "--until-empty"])).code).toBe(0);
    const show = await cli(["campaigns", "show", campaign.id]);
    expect(show.stdout).toContain("step 1: after PT1M, in the thread (Re: …)\n");
    expect(show.stdout).toContain("funnel: queued 2, sent 2, replied 0 (0.0%), bounced 0, unsubscribed 0\n");

    const cancelled = await cli(["campaigns", "cancel", campaign.id]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain(`campaign ${campaign.id} is cancelled: 2 execution(s) will not be sent`);
    setup.instance.clock.advance(5 * 60_000);
    expect((await cli(["deliver", "--until-empty"])).code).toBe(0);
    expect(setup.sink.received).toHaveLength(2);
    expect((await cli(["campaigns", "show", campaign.id])).stdout).toContain("funnel: queued 0, sent 2");
  });

  it("lists unconfirmed executions and resolves them with --confirm or --resend", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    setup.addContact("bob@clinic-two.test", { name: "Bob" });
    const { campaignId } = await setup.launchOneTime();
    const db = setup.instance.services.deps.db;
    db.prepare("UPDATE campaign_executions SET status = 'sent', unconfirmed = 1, sent_at = ?, message_id = '<' || id || '@acme-dental.test>' WHERE campaign_id = ?").run(
      setup.instance.clock.now().toISOString(),
      campaignId,
    );
    const cli = cliOn(setup);
    const listed = await cli(["campaigns", "unconfirmed", campaignId, "--json"]);
    const ids = (JSON.parse(listed.stdout).executions as Array<{ id: string }>).map((e) => e.id);
    expect(ids).toHaveLength(2);
    expect((await cli(["campaigns", "unconfirmed", campaignId, "--resend", "--confirm"])).code).toBe(2);

    const resent = await cli(["campaigns", "unconfirmed", campaignId, "--resend", ids[0]!]);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stderr).toContain("1 execution(s) queued to be sent again");
    const confirmed = await cli(["campaigns", "unconfirmed", campaignId, "--confirm"]);
    expect(confirmed.stderr).toContain("1 execution(s) confirmed");
    expect(JSON.parse((await cli(["campaigns", "unconfirmed", campaignId, "--json"])).stdout).executions).toEqual([]);
    const again = await cli(["campaigns", "unconfirmed", campaignId, "--confirm", ids[1]!]);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/only an unconfirmed execution can be resolved/);
  });

  it("contacts add|update --time-zone set the zone send windows use; '' falls back to the brand's", async () => {
    const setup = await sendingSetup();
    const cli = cliOn(setup);
    const added = await cli(["contacts", "add", "--email", "nia@clinic.test", "--name", "Nia", "--time-zone", "America/New_York", "--json"]);
    expect(added.code, added.stderr).toBe(0);
    const id = JSON.parse(added.stdout).contact.id as string;
    expect(setup.instance.services.contacts.get(setup.instance.teamId, id).timeZone).toBe("America/New_York");
    const bad = await cli(["contacts", "update", id, "--time-zone", "Atlantis/Capital"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/IANA time zone/);
    expect((await cli(["contacts", "update", id, "--time-zone", ""])).code).toBe(0);
    expect(setup.instance.services.contacts.get(setup.instance.teamId, id).timeZone).toBeNull();
  });
});
