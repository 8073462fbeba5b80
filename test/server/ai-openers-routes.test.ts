import { describe, expect, it } from "vitest";
import { aiSetup, type AiSetup } from "../helpers/ai.js";
import { startChatStub, type RecordedRequest, type StubReply } from "../helpers/chat-completions-stub.js";
import { createTestInstance } from "../helpers/instance.js";
import { sendingSetup } from "../helpers/sending.js";
import { startTestServer } from "../helpers/server.js";

const CONTACTS = [
  { email: "mia@cafe-mia.test", name: "Café Mia", description: "Espresso bar near the station", tags: ["cafes"] },
  { email: "leo@leo.test", name: "Leo Roastery", description: "Roasts its own beans on Fridays", tags: ["cafes"] },
  { email: "ana@ana.test", name: "Ana's Tea Room", description: "Loose-leaf teas and scones", tags: ["cafes", "tea"] },
  { email: "zoe@hotel.test", name: "Hotel Zoe", description: "Boutique hotel", tags: ["hotels"] },
];

/** The contact facts a request carried (the stub parses them like a model would read them). */
function factsOf(request: RecordedRequest): { name: string; description: string | null; tags: string[] } {
  const user = request.body.messages.find((m) => m.role === "user")!.content;
  return JSON.parse(/Recipient facts \(JSON\): (\{.*\})/.exec(user)![1]!);
}

/** A model that writes one sentence from the facts it was given. */
const fromFacts = (request: RecordedRequest): StubReply => {
  const facts = factsOf(request);
  return { content: { opener: `${facts.name} caught our eye: ${(facts.description ?? "a local business").toLowerCase()}.` } };
};

function seed(setup: { instance: { services: AiSetup["instance"]["services"]; teamId: string } }) {
  return CONTACTS.map((c) => setup.instance.services.contacts.add(setup.instance.teamId, c).id);
}

async function campaign(setup: AiSetup, body = "{{ contact.opener }}\n\nWe bake bread.") {
  const res = await setup.post("/api/v1/campaigns", { name: "Bread", type: "one-time", subject: "Bread for {{ contact.name }}", bodyMarkdown: body });
  expect(res.status).toBe(201);
  return res.body.campaign.id as string;
}

describe("openers: {{ contact.opener }}", () => {
  it("writes one opener per selected contact from that contact's facts only, at most OUTREACH_AI_CONCURRENCY at once, encrypted at rest", async () => {
    const setup = await aiSetup({ respond: fromFacts, latencyMs: 30, env: { OUTREACH_AI_CONCURRENCY: "2" } });
    const ids = seed(setup);
    const id = await campaign(setup);
    const res = await setup.post(`/api/v1/campaigns/${id}/openers`, { tags: ["cafes"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ generated: 3, failed: [], model: "stub-model" });
    expect(res.body.usage.promptTokens).toBeGreaterThan(0);

    expect(setup.stub.requests).toHaveLength(3);
    expect(setup.stub.maxInFlight).toBeLessThanOrEqual(2);
    for (const request of setup.stub.requests) {
      const own = CONTACTS.find((c) => c.name === factsOf(request).name)!;
      const text = JSON.stringify(request.body.messages);
      expect(text).toContain(own.description!);
      for (const other of CONTACTS.filter((c) => c !== own)) {
        expect(text).not.toContain(other.name);
        expect(text).not.toContain(other.description);
      }
      for (const c of CONTACTS) expect(text).not.toContain(c.email);
      expect(request.body.response_format).toEqual({ type: "json_object" });
    }

    const list = await setup.get(`/api/v1/campaigns/${id}/openers`);
    expect(list.body.total).toBe(3);
    expect(new Map(list.body.openers.map((o: any) => [o.contactId, o.opener]))).toEqual(
      new Map([
        [ids[0], "Café Mia caught our eye: espresso bar near the station."],
        [ids[1], "Leo Roastery caught our eye: roasts its own beans on fridays."],
        [ids[2], "Ana's Tea Room caught our eye: loose-leaf teas and scones."],
      ]),
    );
    expect(list.body.openers.every((o: any) => o.source === "model")).toBe(true);
    const page = await setup.get(`/api/v1/campaigns/${id}/openers?limit=2&page=2`);
    expect(page.body).toMatchObject({ total: 3, page: 2, limit: 2, totalPages: 2 });
    expect(page.body.openers).toHaveLength(1);

    const raw = setup.instance.services.deps.db.prepare("SELECT opener_ct FROM contact_openers").pluck().all() as string[];
    expect(raw).toHaveLength(3);
    for (const ct of raw) expect(ct).not.toContain("caught our eye");

    // The preview renders it (Markdown-escaped like every value).
    const preview = await setup.get(`/api/v1/campaigns/${id}/preview?contactId=${ids[1]}`);
    expect(preview.status).toBe(200);
    expect(preview.body.text).toContain("Leo Roastery caught our eye: roasts its own beans on fridays.");
  });

  it("checks each answer (one sentence, no link, no Liquid) with one repair round; a contact that fails twice gets nothing and is listed", async () => {
    const setup = await aiSetup({
      respond: (request) => {
        const { name } = factsOf(request);
        if (name === "Café Mia") return { content: { opener: "We saw your bar. It looks great." } };
        if (name === "Leo Roastery") return { content: { opener: "See https://leo.test for beans." } };
        if (name === "Ana's Tea Room" && request.body.messages.length === 2) return { content: { opener: "Serving tea since 1998 must take patience." } };
        return { content: { opener: "Hello {{ contact.name }} from us." } };
      },
    });
    seed(setup);
    const id = await campaign(setup);
    const res = await setup.post(`/api/v1/campaigns/${id}/openers`, { tags: ["cafes"] });
    expect(res.status).toBe(200);
    expect(res.body.generated).toBe(0);
    const errors = res.body.failed.map((f: any) => f.error).sort();
    expect(errors).toEqual([
      "the model's opener failed the checks twice (the last time: opener must be one sentence)",
      "the model's opener failed the checks twice (the last time: opener must not contain Liquid ({{ }} or {% %}))",
      "the model's opener failed the checks twice (the last time: opener must not contain a link or a web address (found https://leo.test))",
    ]);
    expect(setup.stub.requests).toHaveLength(6);
    // Ana's first answer invented a year: the repair round said so.
    const ana = setup.stub.requests.find((r) => r.body.messages.length === 4 && r.body.messages[1]!.content.includes("Ana's Tea Room"))!;
    expect(ana.body.messages[3]!.content).toContain("opener states 1998, which is not in the contact's facts");
    const repairs = setup.stub.requests.filter((r) => r.body.messages.length === 4);
    expect(repairs.map((r) => r.body.messages[3]!.content).sort()[0]).toContain("Your answer failed a check: opener must");
    expect((await setup.get(`/api/v1/campaigns/${id}/openers`)).body.total).toBe(0);
  });

  it("edits one opener with PATCH, checked the same way", async () => {
    const setup = await aiSetup();
    const [mia] = seed(setup);
    const id = await campaign(setup);
    const patch = (contactId: string, opener: string) =>
      setup.server.request(`/api/v1/campaigns/${id}/openers/${contactId}`, { method: "PATCH", token: setup.instance.token, json: { opener } }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const ok = await patch(mia!, "Your espresso is the talk of the station.");
    expect(ok.status).toBe(200);
    expect(ok.body.opener).toMatchObject({ contactId: mia, opener: "Your espresso is the talk of the station.", source: "user" });
    expect((await patch(mia!, "One. Two.")).body.error).toBe("invalid body: opener must be one sentence");
    expect((await patch(mia!, "Visit www.mia.test today")).body.error).toContain("opener must not contain a link");
    expect((await patch(mia!, "x".repeat(301))).status).toBe(400);
    expect((await patch("ct_unknown", "Fine.")).status).toBe(404);
    expect((await setup.get(`/api/v1/campaigns/${id}/openers`)).body.openers[0].opener).toBe("Your espresso is the talk of the station.");
  });

  it("answers 503 without a model, 404 for another campaign, and 502 when the model never answers, the server healthy", async () => {
    const bare = createTestInstance();
    const server = await startTestServer(bare.services);
    const created = bare.services.campaigns.create(bare.services.auth.authenticate(`Bearer ${bare.token}`), { name: "n", type: "one-time", subject: "s", bodyMarkdown: "b" });
    const res = await server.request(`/api/v1/campaigns/${(await created).id}/openers`, { method: "POST", token: bare.token, json: {} });
    expect(res.status).toBe(503);
    expect(((await res.json()) as any).error).toContain("OUTREACH_AI_URL");

    const setup = await aiSetup({ respond: () => ({ status: 500 }) });
    seed(setup);
    expect((await setup.post("/api/v1/campaigns/cmp_nope/openers", {})).status).toBe(404);
    const id = await campaign(setup);
    const failed = await setup.post(`/api/v1/campaigns/${id}/openers`, { tags: ["tea"] });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: "provider_error" });
    expect(await setup.healthy()).toBe(true);
    expect((await setup.post(`/api/v1/campaigns/${id}/openers`, { statuses: ["gone"] })).status).toBe(400);
  });

  it("keeps OUTREACH_AI_CONCURRENCY for the whole server: two runs at once share the slots", async () => {
    const setup = await aiSetup({ respond: fromFacts, latencyMs: 40, env: { OUTREACH_AI_CONCURRENCY: "2" } });
    seed(setup);
    const [a, b] = [await campaign(setup), await campaign(setup)];
    const runs = await Promise.all([a, b].map((id) => setup.post(`/api/v1/campaigns/${id}/openers`, { tags: ["cafes"] })));
    expect(runs.map((r) => r.body.generated)).toEqual([3, 3]);
    expect(setup.stub.requests).toHaveLength(6);
    expect(setup.stub.maxInFlight).toBe(2);
  });

  it("streams a progress line per contact as NDJSON", async () => {
    const setup = await aiSetup({ respond: fromFacts });
    seed(setup);
    const id = await campaign(setup);
    const res = await setup.server.request(`/api/v1/campaigns/${id}/openers`, { method: "POST", token: setup.instance.token, headers: { accept: "application/x-ndjson" }, json: { tags: ["cafes"] } });
    const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ type: "progress", data: { stage: "generating", done: 0, total: 3 } });
    expect(lines.slice(1, 4).map((l: any) => l.data.done)).toEqual([1, 2, 3]);
    expect(lines.at(-1)).toMatchObject({ type: "complete", data: { generated: 3 } });
  });
});

describe("launch with {{ contact.opener }}", () => {
  it("refuses while a selected contact has no opener, naming it; launches and delivers the openers once all are there", async () => {
    const stub = await startChatStub({ respond: fromFacts });
    const setup = await sendingSetup({ config: { ai: { url: stub.url, key: null, model: "stub-model", timeoutMs: 10_000, concurrency: 4, debug: false } } });
    const services = setup.instance.services;
    const mia = setup.addContact("mia@cafe-mia.test", { name: "Café Mia", tags: ["cafes"] });
    const leo = setup.addContact("leo@leo.test", { name: "Leo Roastery", tags: ["cafes"] });
    const campaign = await services.campaigns.create(setup.principal, {
      name: "Bread",
      type: "one-time",
      subject: "Bread",
      bodyMarkdown: "Hello,\n\nnothing yet.",
      sendingDomainId: setup.domain.id,
      followUps: [{ delay: "P3D", bodyMarkdown: "{{ contact.opener }} Still hungry?" }],
    });
    services.openers.set(setup.principal, campaign.id, mia, "Your espresso bar is a local favourite.");
    let refusal: unknown;
    try {
      services.campaigns.launch(setup.principal, campaign.id, {});
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toMatchObject({ status: 409 });
    expect((refusal as Error).message).toContain(`1 selected contact(s) have none: ${leo}`);
    expect((refusal as Error).message).not.toContain(mia);
    expect(services.campaigns.get(setup.principal, campaign.id).launchedAt).toBeNull();

    const generated = await services.openers.generate(setup.principal, campaign.id, { tags: ["cafes"] });
    expect(generated.generated).toBe(2);
    expect(stub.requests[0]!.headers.authorization).toBeUndefined();
    expect(services.campaigns.launch(setup.principal, campaign.id, {}).queued).toBe(2);
    const preview = await services.campaigns.preview(setup.principal, campaign.id, leo, 1);
    expect(preview.text).toContain("Leo Roastery caught our eye: a local business. Still hungry?");
  });
});
