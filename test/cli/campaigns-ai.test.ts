import { describe, expect, it } from "vitest";
import { aiSetup, type AiSetup } from "../helpers/ai.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { createTestInstance, type TestInstance } from "../helpers/instance.js";

/** The CLI in-process on an instance's data directory, with its clock and settings (the AI model's included). */
function cliOn(instance: TestInstance) {
  const deps = { clock: instance.clock, serverConfig: instance.services.deps.config };
  return (argv: string[]) => runCli(["--data-dir", instance.dataDir, "--token", instance.token, ...argv], { env: cliEnv(), deps });
}

const DRAFT = {
  subject: "Brot für {{ contact.name }}",
  bodyMarkdown: "Hallo {{ contact.name }}, frisches Brot jeden Morgen.",
  followUps: [{ delay: "P3D", subject: "Noch einmal", bodyMarkdown: "Kurz nachgefragt." }],
};

describe("outreach campaigns draft", () => {
  it("prints the draft as Markdown, and --save --json keeps it as a draft campaign", async () => {
    const setup: AiSetup = await aiSetup({ respond: () => ({ content: DRAFT }) });
    const cli = cliOn(setup.instance);
    const printed = await cli(["campaigns", "draft", "--brief", "Bread for cafés", "--follow-ups", "1"]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe("# Brot für {{ contact.name }}\n\nHallo {{ contact.name }}, frisches Brot jeden Morgen.\n\n---\n\n## Follow-up 1 (after P3D): Noch einmal\n\nKurz nachgefragt.\n");
    expect(printed.stderr).toContain("--save keeps it");

    const saved = await cli(["campaigns", "draft", "--brief", "Bread for cafés", "--follow-ups", "1", "--save", "--json"]);
    expect(saved.code, saved.stderr).toBe(0);
    const result = JSON.parse(saved.stdout);
    expect(result.campaign).toMatchObject({ status: "draft", type: "one-time", followUps: [{ delay: "P3D", subject: "Noch einmal" }] });
    expect(setup.stub.requests.at(-1)!.body.messages[1]!.content).toContain("Bread for cafés");
  });

  it("refuses --follow-ups out of range as a usage error, before any request", async () => {
    const setup = await aiSetup();
    const res = await cliOn(setup.instance)(["campaigns", "draft", "--brief", "x", "--follow-ups", "4"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--follow-ups must be a whole number from 0 to 3");
    expect(setup.stub.requests).toHaveLength(0);
  });

  it("says which variables to set, exit 2, when no model is configured", async () => {
    const instance = createTestInstance();
    const res = await cliOn(instance)(["campaigns", "draft", "--brief", "Bread"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("OUTREACH_AI_URL");
    expect(res.stderr).toContain("OUTREACH_AI_MODEL");
  });

  it("exits 6 with the problem when the model's draft fails the checks twice", async () => {
    const setup = await aiSetup({ respond: () => ({ content: { ...DRAFT, followUps: [], subject: "Hi {{ contact.vorname }}" } }) });
    const res = await cliOn(setup.instance)(["campaigns", "draft", "--brief", "Bread", "--save"]);
    expect(res.code).toBe(6);
    expect(res.stderr).toContain("subject uses an unknown variable contact.vorname");
    expect(setup.instance.services.campaigns.list(setup.instance.services.auth.authenticate(`Bearer ${setup.instance.token}`), { page: 1, limit: 10 }).total).toBe(0);
  });
});

describe("outreach campaigns openers", () => {
  it("generates, lists and sets openers; usage errors and a missing model say what to do", async () => {
    const setup = await aiSetup({ respond: (request) => ({ content: { opener: `Hello from the stub to ${/"name":"([^"]+)"/.exec(request.body.messages[1]!.content)![1]}.` } }) });
    const { services, teamId } = setup.instance;
    const mia = services.contacts.add(teamId, { email: "mia@cafe-mia.test", name: "Café Mia", tags: ["cafes"] }).id;
    services.contacts.add(teamId, { email: "zoe@hotel.test", name: "Hotel Zoe", tags: ["hotels"] });
    const principal = services.auth.authenticate(`Bearer ${setup.instance.token}`);
    const campaign = await services.campaigns.create(principal, { name: "n", type: "one-time", subject: "s", bodyMarkdown: "{{ contact.opener }}" });
    const cli = cliOn(setup.instance);

    const generated = await cli(["campaigns", "openers", campaign.id, "--generate", "--tags", "cafes"]);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toMatch(/^1 opener\(s\) written \(stub-model, \d+ prompt \+ \d+ completion tokens\)/);
    const listed = await cli(["campaigns", "openers", campaign.id, "--json"]);
    expect(JSON.parse(listed.stdout).openers).toMatchObject([{ contactId: mia, opener: "Hello from the stub to Café Mia.", source: "model" }]);

    const set = await cli(["campaigns", "openers", campaign.id, "--set", mia, "--text", "Your espresso is famous."]);
    expect(set.code, set.stderr).toBe(0);
    const table = await cli(["campaigns", "openers", campaign.id]);
    expect(table.stdout).toContain("Your espresso is famous.");
    expect(table.stdout).toContain("user");

    const bad = await cli(["campaigns", "openers", campaign.id, "--set", mia, "--text", "See https://x.test now."]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("opener must not contain a link");
    expect((await cli(["campaigns", "openers", campaign.id, "--set", mia])).stderr).toContain("--set needs --text");

    const bare = createTestInstance();
    const none = await cliOn(bare)(["campaigns", "openers", campaign.id, "--generate"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("OUTREACH_AI_MODEL");
  });
});

