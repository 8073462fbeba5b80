import { describe, expect, it } from "vitest";
import { aiSetup, type AiSetup } from "../helpers/ai.js";
import { inOrder } from "../helpers/chat-completions-stub.js";
import { createTestInstance } from "../helpers/instance.js";
import { readNdjson, startTestServer } from "../helpers/server.js";

const GOOD = {
  subject: "Frisches Brot für {{ contact.name }}",
  bodyMarkdown: "Hallo {{ contact.name }},\n\nwir backen jeden Morgen. Mehr auf [unserer Seite](https://crumb.example/cafes).\n\n[Abmelden]({{ unsubscribeUrl }})",
  followUps: [
    { delay: "P3D", subject: "Noch einmal: Brot", bodyMarkdown: "Kurz nachgefragt, {{ contact.name }}." },
    { delay: "p7d", subject: "Zum letzten Mal", bodyMarkdown: "Besuchen Sie <https://www.crumb.example>." },
  ],
};

function addContacts(setup: AiSetup) {
  const { services, teamId } = setup.instance;
  services.contacts.add(teamId, { email: "mia@cafe-mia.test", name: "Café Mia", description: "Espresso bar near the station", tags: ["cafes"] });
  services.contacts.add(teamId, { email: "leo@leo.test", name: "Leo Roastery", description: "Roasts its own beans", tags: ["cafes", "roasters"] });
  services.contacts.add(teamId, { email: "zoe@hotel.test", name: "Hotel Zoe", description: "Boutique hotel with a breakfast room", tags: ["hotels"] });
}

const campaignsCount = async (setup: AiSetup) => (await setup.get("/api/v1/campaigns")).body.total as number;

describe("POST /api/v1/campaigns/drafts", () => {
  it("answers 503 ai_not_configured naming the variables when no model is set, and sends nothing anywhere", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const res = await server.request("/api/v1/campaigns/drafts", { method: "POST", token: instance.token, json: { brief: "Bread for cafés" } });
    expect(res.status).toBe(503);
    const body = (await res.json()) as Record<string, string>;
    expect(body.code).toBe("ai_not_configured");
    expect(body.error).toContain("OUTREACH_AI_URL");
    expect(body.error).toContain("OUTREACH_AI_MODEL");
  });

  it("refuses a bad body with a 400 naming the field, before any model request", async () => {
    const setup = await aiSetup();
    for (const [json, message] of [
      [{ brief: "  " }, "brief must be at least 1 character long"],
      [{ brief: "x".repeat(2001) }, "brief must be at most 2000 characters"],
      [{ brief: "ok", followUps: 4 }, "followUps must be at most 3"],
      [{ brief: "ok", followUps: -1 }, "followUps must be at least 0"],
      [{ brief: "ok", sve: true }, "sve is not a known field"],
      [{}, "brief is required"],
    ] as const) {
      const res = await setup.post("/api/v1/campaigns/drafts", json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.error).toContain(message);
    }
    expect(setup.stub.requests).toHaveLength(0);
  });

  it("writes a checked draft from the brand, its style guide and the tagged audience, and saves it as a draft campaign with its follow-ups", async () => {
    const setup = await aiSetup({ respond: () => ({ content: GOOD }) });
    addContacts(setup);
    const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Fresh bread for cafés, delivered at 6am", followUps: 2, tags: ["cafes"], save: true });
    expect(res.status).toBe(200);
    expect(res.body.draft).toEqual({
      subject: GOOD.subject,
      bodyMarkdown: GOOD.bodyMarkdown,
      followUps: [
        { delay: "P3D", subject: "Noch einmal: Brot", bodyMarkdown: GOOD.followUps[0]!.bodyMarkdown },
        { delay: "P7D", subject: "Zum letzten Mal", bodyMarkdown: GOOD.followUps[1]!.bodyMarkdown },
      ],
    });
    expect(res.body.model).toBe("stub-model");
    expect(res.body.usage.promptTokens).toBeGreaterThan(0);
    expect(res.body.usage.completionTokens).toBeGreaterThan(0);
    expect(res.body.campaign).toMatchObject({ type: "one-time", status: "draft", subject: GOOD.subject, followUps: res.body.draft.followUps });
    expect((await setup.get(`/api/v1/campaigns/${res.body.campaign.id}`)).body.campaign.bodyMarkdown).toBe(GOOD.bodyMarkdown);

    expect(setup.stub.requests).toHaveLength(1);
    const request = setup.stub.requests[0]!;
    expect(request.headers.authorization).toBe("Bearer sk-test-key");
    expect(request.body.model).toBe("stub-model");
    expect(request.body.response_format).toEqual({ type: "json_object" });
    const prompt = request.body.messages.map((m) => m.content).join("\n");
    expect(prompt).toContain("Write in this language: de");
    expect(prompt).toContain('"followUps" has exactly 2 items');
    expect(prompt).toContain("warm, plain, no exclamation marks"); // the style guide
    expect(prompt).toContain("A family bakery");
    expect(prompt).toContain("Fresh bread for cafés, delivered at 6am");
    expect(prompt).toContain("{{ contact.name }}");
    // The audience: the tagged contacts' facts, never another contact's, never an email address.
    expect(prompt).toContain("Espresso bar near the station");
    expect(prompt).toContain("Leo Roastery");
    expect(prompt).not.toContain("Hotel Zoe");
    expect(prompt).not.toContain("mia@cafe-mia.test");
  });

  it("uses the language asked for, and sends no contact facts without tags", async () => {
    const setup = await aiSetup({ respond: () => ({ content: { ...GOOD, followUps: [] } }) });
    addContacts(setup);
    const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", language: "French" });
    expect(res.status).toBe(200);
    expect(res.body.campaign).toBeUndefined();
    const prompt = setup.stub.requests[0]!.body.messages.map((m) => m.content).join("\n");
    expect(prompt).toContain("Write in this language: French");
    expect(prompt).toContain("Audience facts (JSON, up to 5 of the contacts it goes to): []");
    expect(prompt).not.toContain("Café Mia");
    expect(await campaignsCount(setup)).toBe(0);
  });

  it("sends the exact Liquid error back once; a second unknown variable is a 502 naming it, nothing saved, the server healthy", async () => {
    const bad = { ...GOOD, followUps: [], bodyMarkdown: "Hallo {{ contact.firstName }}" };
    const setup = await aiSetup({ respond: () => ({ content: bad }) });
    const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", save: true });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe("provider_error");
    expect(res.body.error).toContain("bodyMarkdown uses an unknown variable contact.firstName");
    expect(setup.stub.requests).toHaveLength(2);
    const repair = setup.stub.requests[1]!.body.messages;
    expect(repair.at(-2)).toEqual({ role: "assistant", content: JSON.stringify(bad) });
    expect(repair.at(-1)!.content).toContain("bodyMarkdown uses an unknown variable contact.firstName (known: contact.name");
    expect(await campaignsCount(setup)).toBe(0);
    expect(await setup.healthy()).toBe(true);
  });

  it("accepts the repaired answer after one failed check", async () => {
    const setup = await aiSetup({ respond: inOrder({ content: { ...GOOD, subject: "Hi {{ contact.nme }}" } }, { content: GOOD }) });
    const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", followUps: 2, save: true });
    expect(res.status).toBe(200);
    expect(res.body.campaign.subject).toBe(GOOD.subject);
    expect(setup.stub.requests[1]!.body.messages.at(-1)!.content).toContain("subject uses an unknown variable contact.nme");
    // Both rounds are counted.
    expect(res.body.usage.promptTokens).toBeGreaterThan(0);
  });

  it("refuses a foreign link in any form through the repair round, then 502 naming it", async () => {
    for (const body of ["See [our partner](https://partner.test/offer).", "Visit <https://evil.test>", "Go to www.other.test now", "Write to [us](mailto:x@other.test)"]) {
      const setup = await aiSetup({ respond: () => ({ content: { ...GOOD, followUps: [], bodyMarkdown: body } }) });
      const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", save: true });
      expect(res.status, body).toBe(502);
      expect(res.body.error).toMatch(/bodyMarkdown links to \S+: the only links allowed are the brand's website https:\/\/crumb\.example and \{\{ unsubscribeUrl \}\}/);
      expect(setup.stub.requests[1]!.body.messages.at(-1)!.content).toContain("bodyMarkdown links to");
      expect(await campaignsCount(setup)).toBe(0);
    }
  });

  it("refuses a draft written in another language than the brand's, through the repair round", async () => {
    const english = { ...GOOD, followUps: [], bodyMarkdown: "Hello {{ contact.name }}, we bake fresh bread for your café and we deliver it to you every morning before seven." };
    const setup = await aiSetup({ respond: () => ({ content: english }) });
    const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", save: true });
    expect(res.status).toBe(502);
    expect(res.body.error).toContain("bodyMarkdown seems to be written in English, not de");
    expect(setup.stub.requests[1]!.body.messages.at(-1)!.content).toContain("write every subject and body in de");
    expect(await campaignsCount(setup)).toBe(0);
    // The same text passes when English is what was asked for.
    const asked = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", language: "English" });
    expect(asked.status).toBe(200);
  });

  it("checks the follow-up count, delays and lengths like campaign create", async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...GOOD, followUps: [{ ...GOOD.followUps[0], delay: "P90D" }, GOOD.followUps[1]] }, "the last time: followUps[0].delay must be at most P60D"],
      [{ ...GOOD, followUps: [GOOD.followUps[0]] }, "the last time: followUps must have at least 2 items"],
      [{ ...GOOD, subject: "s".repeat(501) }, "the last time: subject must be at most 500 characters"],
    ];
    for (const [content, message] of cases) {
      const setup = await aiSetup({ respond: () => ({ content }) });
      const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", followUps: 2 });
      expect(res.status).toBe(502);
      expect(res.body.error).toContain(message);
    }
  });

  it("turns prose, malformed JSON, a timeout and a 429 storm into a 502 each, nothing saved, the server healthy", async () => {
    const cases = [
      { respond: () => ({ content: "Here is a lovely email about bread for your cafés." }), message: "the answer was not a JSON object" },
      { respond: () => ({ content: '{"subject": "Hi", "bodyMarkdown": "unterminated' }), message: "the answer was not a JSON object" },
      { respond: () => ({ hang: true as const }), env: { OUTREACH_AI_TIMEOUT_MS: "300" }, message: "no answer within 300 ms" },
      { respond: () => ({ status: 429, headers: { "retry-after": "0" } }), message: "answered 429 after 3 attempts" },
      { respond: () => ({ status: 500 }), message: "answered 500 after 3 attempts" },
    ];
    for (const c of cases) {
      const setup = await aiSetup({ respond: c.respond, env: c.env });
      const res = await setup.post("/api/v1/campaigns/drafts", { brief: "Bread", save: true });
      expect(res.status, c.message).toBe(502);
      expect(res.body).toMatchObject({ code: "provider_error" });
      expect(res.body.error).toContain(c.message);
      expect(await campaignsCount(setup)).toBe(0);
      expect(await setup.healthy()).toBe(true);
    }
  });

  it("streams progress then the draft as NDJSON", async () => {
    const setup = await aiSetup({ respond: inOrder({ content: "prose" }, { content: { ...GOOD, followUps: [] } }) });
    const res = await setup.server.request("/api/v1/campaigns/drafts", {
      method: "POST",
      token: setup.instance.token,
      headers: { accept: "application/x-ndjson" },
      json: { brief: "Bread", save: true },
    });
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = await readNdjson(res);
    expect(lines.slice(0, -1).map((l) => (l.data as { stage: string }).stage)).toEqual(["prompting", "checking", "repairing", "checking", "saving"]);
    expect(lines.at(-1)).toMatchObject({ type: "complete", data: { draft: { subject: GOOD.subject }, campaign: { status: "draft" } } });
  });
});
