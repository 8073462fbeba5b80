import { describe, expect, it } from "vitest";
import { startChatStub, type RecordedRequest } from "../helpers/chat-completions-stub.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { sendingSetup } from "../helpers/sending.js";

/** A model that drafts when asked for a draft and writes an opener from the facts when asked for one. */
function model(request: RecordedRequest) {
  const user = request.body.messages[1]!.content;
  const facts = /Recipient facts \(JSON\): (\{.*\})/.exec(user);
  if (facts) return { content: { opener: `${JSON.parse(facts[1]!).name} keeps the neighbourhood awake.` } };
  return {
    content: {
      subject: "Morning bread for {{ contact.name }}",
      bodyMarkdown: "{{ contact.opener }}\n\nWe deliver bread before 7am.",
      followUps: [{ delay: "P3D", subject: "Still hungry, {{ contact.name }}?", bodyMarkdown: "{{ contact.opener }} Shall we send a sample?" }],
    },
  };
}

describe("from a brief to a launched campaign with openers, through the CLI", () => {
  it("drafts and saves, refuses to launch without openers, generates them, previews one contact and launches", async () => {
    const stub = await startChatStub({ respond: model });
    const setup = await sendingSetup({ config: { ai: { url: stub.url, key: "sk-e2e", model: "stub-model", timeoutMs: 10_000, concurrency: 4, debug: false } } });
    const mia = setup.addContact("mia@cafe-mia.test", { name: "Café Mia", tags: ["cafes"] });
    setup.addContact("leo@leo.test", { name: "Leo Roastery", tags: ["cafes"] });
    const deps = { clock: setup.instance.clock, serverConfig: setup.instance.services.deps.config };
    const cli = (...argv: string[]) => runCli(["--data-dir", setup.instance.dataDir, "--token", setup.instance.token, ...argv], { env: cliEnv(), deps });

    const drafted = await cli("campaigns", "draft", "--brief", "Morning bread for cafés", "--follow-ups", "1", "--tags", "cafes", "--save", "--json");
    expect(drafted.code, drafted.stderr).toBe(0);
    const id = JSON.parse(drafted.stdout).campaign.id as string;
    expect((await cli("campaigns", "edit", id, "--sending-domain", setup.domain.id)).code).toBe(0);

    const refused = await cli("campaigns", "launch", id);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("2 selected contact(s) have none");

    const generated = await cli("campaigns", "openers", id, "--generate", "--tags", "cafes");
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toMatch(/^2 opener\(s\) written/);

    const preview = await cli("campaigns", "preview", id, "--contact", mia, "--step", "1");
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain("Subject: Still hungry, Café Mia?");
    expect(preview.stdout).toContain("Café Mia keeps the neighbourhood awake. Shall we send a sample?");

    const launched = await cli("campaigns", "launch", id, "--json");
    expect(launched.code, launched.stderr).toBe(0);
    expect(JSON.parse(launched.stdout).queued).toBe(2);
    expect(stub.requests.every((r) => r.headers.authorization === "Bearer sk-e2e")).toBe(true);
  });
});
