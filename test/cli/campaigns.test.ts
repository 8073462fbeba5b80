import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { insertContact } from "../helpers/contacts.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";
import { addLocalContact, localCli } from "../helpers/local-cli.js";

describe("outreach campaigns", () => {
  it("creates, lists (piped and on a terminal) and shows a campaign", async () => {
    const cli = await localCli();
    const created = await cli.run(["campaigns", "create", "--name", "Welcome", "--subject", "Hello there", "--json"]);
    expect(created.code).toBe(0);
    const { campaign } = JSON.parse(created.stdout);
    expect(campaign).toMatchObject({ name: "Welcome", type: "lifetime", status: "draft", subject: "Hello there" });

    const piped = await cli.run(["campaigns", "list"]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(`${campaign.id}\tWelcome\tlifetime\tdraft\tHello there\t${campaign.updatedAt}\n`);

    const tty = await cli.run(["campaigns", "list"], true);
    expect(tty.stdout).toContain("STATUS");
    expect(tty.stdout).toContain("Welcome");

    const show = await cli.run(["campaigns", "show", campaign.id]);
    expect(show.stdout).toContain(`status\tdraft\n`);
    expect(show.stdout).toContain(`subject\tHello there\n`);
  });

  it("moves a lifetime campaign through activate, pause, resume and archive; illegal moves exit 5", async () => {
    const cli = await localCli();
    const { campaign } = JSON.parse((await cli.run(["campaigns", "create", "--name", "Drip", "--subject", "Hi", "--json"])).stdout);
    const pauseDraft = await cli.run(["campaigns", "pause", campaign.id]);
    expect(pauseDraft.code).toBe(5);
    expect(pauseDraft.stderr).toContain("is draft and cannot move to paused: it can move to active");

    for (const [verb, status] of [["activate", "active"], ["pause", "paused"], ["resume", "active"], ["archive", "archived"]]) {
      const res = await cli.run(["campaigns", verb!, campaign.id]);
      expect(res.code, verb).toBe(0);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain(`campaign ${campaign.id} (Drip) is ${status}`);
    }
    const resume = await cli.run(["campaigns", "resume", campaign.id]);
    expect(resume.code).toBe(5);
    expect(resume.stderr).toContain("archived campaigns cannot change status");
  });

  it("refuses a move whose --if-status no longer holds (exit 5)", async () => {
    const cli = await localCli();
    const { campaign } = JSON.parse((await cli.run(["campaigns", "create", "--name", "Drip", "--subject", "Hi", "--json"])).stdout);
    await cli.run(["campaigns", "activate", campaign.id]);
    const res = await cli.run(["campaigns", "archive", campaign.id, "--if-status", "paused"]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain("is active, not paused as expected");
  });

  it("triggers with a team API key from --api-key or OUTREACH_API_KEY, never with the personal token", async () => {
    const cli = await localCli();
    const { campaign } = JSON.parse((await cli.run(["campaigns", "create", "--name", "Drip", "--subject", "Hi", "--json"])).stdout);
    await cli.run(["campaigns", "activate", campaign.id]);
    const contactId = addLocalContact(cli.dataDir, cli.teamId, cli.env);

    const noKey = await cli.run(["campaigns", "trigger", campaign.id, "--contact", contactId]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("a team API key is needed");

    const key = (await cli.run(["keys", "create", "--name", "hook"])).stdout.trim();
    const first = await cli.run(["campaigns", "trigger", campaign.id, "--contact", contactId, "--api-key", key]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^exe_\\w+\\t${contactId}\\t0\\tpending\\t`));
    expect(first.stderr).toContain("queued");

    const again = await runCli(["campaigns", "trigger", campaign.id, "--contact", contactId, "--json"], { env: { ...cli.env, OUTREACH_API_KEY: key } });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).created).toBe(false);

    const executions = await cli.run(["campaigns", "executions", campaign.id, "--status", "pending"]);
    expect(executions.stdout.trim().split("\n")).toHaveLength(1);

    const wrong = await cli.run(["campaigns", "trigger", campaign.id, "--contact", contactId, "--api-key", "otr_key_notreal"]);
    expect(wrong.code).toBe(4);
  });

  it("triggers a remote server with only a team API key, no personal token", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const owner = instance.services.auth.authenticate(`Bearer ${instance.token}`);
    const campaign = await instance.services.campaigns.create(owner, { name: "Drip", type: "lifetime", subject: "Hi" });
    instance.services.campaigns.changeLifecycle(owner, campaign.id, { status: "active" });
    const contactId = insertContact(instance.services, instance.teamId);
    const { key } = instance.services.teamApiKeys.create(owner, { name: "ci", scopes: ["campaigns:trigger"] });
    const res = await runCli(["campaigns", "trigger", campaign.id, "--contact", contactId, "--json"], {
      env: { OUTREACH_BASE_URL: server.url, OUTREACH_API_KEY: key },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ created: true, execution: { campaignId: campaign.id, contactId, status: "pending" } });
  });

  it("exits 3 for an unknown campaign and 2 for bad flags", async () => {
    const cli = await localCli();
    expect((await cli.run(["campaigns", "show", "cmp_unknown000000000"])).code).toBe(3);
    expect((await cli.run(["campaigns", "list", "--limit", "0"])).code).toBe(2);
    expect((await cli.run(["campaigns", "list", "--type", "weekly"])).code).toBe(2);
    const noSubject = await cli.run(["campaigns", "create", "--name", "x"]);
    expect(noSubject.code).toBe(2);
    expect(noSubject.stderr).toContain("--subject");
  });

  it("has --help with an example for every subcommand", async () => {
    for (const verb of ["list", "show", "create", "activate", "pause", "resume", "archive", "trigger", "executions"]) {
      const res = await runCli(["campaigns", verb, "--help"]);
      expect(res.code, verb).toBe(0);
      expect(res.stdout, verb).toContain("Examples:\n  $ outreach campaigns");
    }
  });
});
