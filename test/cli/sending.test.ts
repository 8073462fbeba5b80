import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";
import { startTestServer } from "../helpers/server.js";
import { openInstance } from "../../src/services/instance.js";

/** The CLI in-process on the setup's data directory, with its clock and settings (as another process would open it). */
function cliOn(setup: SendingSetup) {
  const env = cliEnv();
  const deps = { clock: setup.instance.clock, serverConfig: setup.instance.services.deps.config };
  return (argv: string[], stdin?: string) => runCli(["--data-dir", setup.instance.dataDir, "--token", setup.instance.token, ...argv], { env, deps, stdin });
}

describe("outreach campaigns edit|launch|preview|executions and outreach deliver", () => {
  it("writes a campaign, previews one contact's message, launches it and delivers until empty", async () => {
    const setup = await sendingSetup();
    const bea = setup.addContact("bea@clinic-one.test", { name: "Bea", tags: ["dentist"] });
    setup.addContact("carl@clinic-two.test", { name: "Carl", tags: ["baker"] });
    const cli = cliOn(setup);
    const bodyFile = join(tempDir(), "body.md");
    writeFileSync(bodyFile, "Hi {{ contact.name }},\n\nwe opened a **new** practice.\n");

    const created = await cli(["campaigns", "create", "--type", "one-time", "--name", "Opening", "--subject", "News for {{ contact.name }}", "--body-file", bodyFile, "--json"]);
    expect(created.code).toBe(0);
    const campaign = JSON.parse(created.stdout).campaign as { id: string; bodyMarkdown: string; sendingDomainId: string | null };
    expect(campaign.bodyMarkdown).toContain("**new** practice");

    // A typo in a template is refused at save time, naming the variable; exit 2 would be a flag error, 1 the server's 400.
    const typo = await cli(["campaigns", "edit", campaign.id, "--subject", "News for {{ contact.nmae }}"]);
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toMatch(/nmae/);
    expect((await cli(["campaigns", "edit", campaign.id])).stderr).toMatch(/nothing to change/);
    const edited = await cli(["campaigns", "edit", campaign.id, "--sending-domain", setup.domain.id, "--body-file", "-", "--json"], "Hello {{ contact.name }}, see you soon.\n");
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout).campaign).toMatchObject({ sendingDomainId: setup.domain.id, bodyMarkdown: "Hello {{ contact.name }}, see you soon.\n" });

    const preview = await cli(["campaigns", "preview", campaign.id, "--contact", bea]);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain("From: Acme Dental <hello@acme-dental.test>\n");
    expect(preview.stdout).toContain("To: bea@clinic-one.test\n");
    expect(preview.stdout).toContain("Subject: News for Bea\n");
    expect(preview.stdout).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click\n/);
    expect(preview.stdout).toContain("Hello Bea, see you soon.");
    expect(preview.stdout).toContain("12 Main Street");
    const html = await cli(["campaigns", "preview", campaign.id, "--contact", bea, "--html"]);
    expect(html.stdout).toMatch(/^<!doctype html>/i);
    expect(html.stdout).toContain("Hello Bea, see you soon.");

    const launched = await cli(["campaigns", "launch", campaign.id, "--tags", "dentist"]);
    expect(launched.code).toBe(0);
    // The relay is configured: serve or deliver sends them (nothing claims they are being sent).
    expect(launched.stderr).toMatch(/launched: 1 message\(s\) queued; `outreach serve` \(running on this data directory\) or `outreach deliver` sends them/);
    const again = await cli(["campaigns", "launch", campaign.id]);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/launched once/);
    expect((await cli(["campaigns", "edit", campaign.id, "--name", "Later"])).stderr).toMatch(/only a draft can be edited/);

    const before = await cli(["campaigns", "executions", campaign.id]);
    expect(before.stdout.split("\t")[3]).toBe("pending");

    const delivered = await cli(["deliver", "--until-empty"]);
    expect(delivered.code).toBe(0);
    expect(delivered.stderr).toMatch(/delivered: 1 sent, 0 failed, 0 to retry, 0 skipped/);
    expect(delivered.stderr).toMatch(/delivery exe_\w+ \(campaign cmp_\w+\) attempt 1: sent \(250/);
    expect(setup.sink.received.map((m) => m.rcptTo[0])).toEqual(["bea@clinic-one.test"]);

    const executions = await cli(["campaigns", "executions", campaign.id, "--json"]);
    const [execution] = JSON.parse(executions.stdout).executions;
    expect(execution).toMatchObject({ contactId: bea, status: "sent", attempts: 1, unconfirmed: false });
    const show = await cli(["campaigns", "show", campaign.id]);
    expect(show.stdout).toContain("status\tsent\n");
    expect(show.stdout).toContain("executions: sent 1\n");

    // Nothing due: a second run sends nothing.
    const json = await cli(["deliver", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ claimed: 0, sent: 0, waiting: 0 });
  });

  it("launch without a relay says that nothing is sent until one is configured", async () => {
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test", { name: "Bea" });
    const env = cliEnv();
    const deps = { clock: setup.instance.clock, serverConfig: { ...setup.instance.services.deps.config, smtp: undefined } };
    const cli = (argv: string[]) => runCli(["--data-dir", setup.instance.dataDir, "--token", setup.instance.token, ...argv], { env, deps });
    const bodyFile = join(tempDir(), "body.md");
    writeFileSync(bodyFile, "Hi {{ contact.name }}");
    const created = await cli(["campaigns", "create", "--type", "one-time", "--name", "Opening", "--subject", "News", "--body-file", bodyFile, "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const launched = await cli(["campaigns", "launch", JSON.parse(created.stdout).campaign.id]);
    expect(launched.code, launched.stderr).toBe(0);
    expect(launched.stderr).toMatch(
      /launched: 1 message\(s\) queued; nothing is sent until a relay is configured: set OUTREACH_SMTP_URL \(and OUTREACH_PUBLIC_URL\), then run `outreach serve` or `outreach deliver`/,
    );
    expect(launched.stderr).not.toMatch(/sending/);
  });

  it("deliver without OUTREACH_SMTP_URL or without OUTREACH_PUBLIC_URL: the same exit 2 and a message naming the variable", async () => {
    const setup = await sendingSetup();
    const noRelay = await runCli(["deliver", "--data-dir", setup.instance.dataDir], { env: cliEnv(), deps: { clock: setup.instance.clock, serverConfig: { smtp: undefined } } });
    expect(noRelay.code).toBe(2);
    expect(noRelay.stderr).toMatch(/^error: OUTREACH_SMTP_URL must be set to deliver: /m);
    // The relay set in the environment, the public URL not: the configuration refuses it the same way.
    const noPublicUrl = await runCli(["deliver", "--data-dir", setup.instance.dataDir], {
      env: cliEnv({ OUTREACH_SMTP_URL: "smtp://127.0.0.1:2525" }),
      deps: { clock: setup.instance.clock },
    });
    expect(noPublicUrl.code).toBe(2);
    expect(noPublicUrl.stderr).toMatch(/^error: OUTREACH_PUBLIC_URL must be set to deliver: /m);
  });

  it("a master-key rotation keeps links already mailed working and the suppression list effective", async () => {
    const setup = await sendingSetup();
    const { services } = setup.instance;
    const teamId = setup.instance.teamId;
    const bea = setup.addContact("bea@clinic-one.test");
    setup.addContact("gone@clinic-two.test");
    const { campaignId } = await setup.launchOneTime();
    const link = services.messages.unsubscribeUrl(campaignId, bea);
    services.suppressions.add(teamId, "gone@clinic-two.test", "bounced", setup.instance.clock.now().toISOString());

    const rotated = await runCli(["--data-dir", setup.instance.dataDir, "admin", "keys", "rotate"], { env: cliEnv(), deps: { clock: setup.instance.clock } });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toMatch(/email suppressions: 1, instance secrets: 1[,)]/);
    expect(rotated.stderr).toMatch(/Done: every row is under key/);

    // A fresh opener (another process) reads the rotated rows with the new key only.
    const cli = cliOn(setup);
    const delivered = await cli(["deliver", "--until-empty"]);
    expect(delivered.stderr).toMatch(/1 sent, 0 failed, 0 to retry, 1 skipped/);
    expect(setup.sink.received.map((m) => m.rcptTo[0])).toEqual(["bea@clinic-one.test"]);
    // A server started after the rotation (a running one follows the key file while the rotation runs).
    const after = openInstance({ dataDir: setup.instance.dataDir, env: {}, clock: setup.instance.clock, config: services.deps.config });
    try {
      const server = await startTestServer(after.services);
      const res = await fetch(server.url + new URL(link).pathname.replace(/^\/outreach/, ""), { method: "POST", body: "List-Unsubscribe=One-Click" });
      expect(res.status, server.logs.join("\n")).toBe(200);
      expect(after.services.contacts.get(teamId, bea).status).toBe("unsubscribed");
      expect(after.services.suppressions.has(teamId, "bea@clinic-one.test")).toBe(true);
    } finally {
      after.close();
    }
  });
});
