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
