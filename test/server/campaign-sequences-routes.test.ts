import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { sendingSetup, type SendingSetup } from "../helpers/sending.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const FOLLOW_UP = { delay: "PT1M", bodyMarkdown: "Following up, {{ contact.name }}." };
const MINUTE = 60_000;

async function post(server: TestServer, token: string, path: string, json?: unknown) {
  const res = await server.request(path, { method: "POST", token, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function patch(server: TestServer, token: string, id: string, json: unknown) {
  const res = await server.request(`/api/v1/campaigns/${id}`, { method: "PATCH", token, json });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A one-time campaign with one follow-up, launched to two contacts, over HTTP. */
async function launched(setup: SendingSetup, server: TestServer) {
  const token = setup.instance.token;
  setup.addContact("bea@clinic-one.test", { name: "Bea" });
  setup.addContact("bob@clinic-two.test", { name: "Bob" });
  const created = await post(server, token, "/api/v1/campaigns", {
    name: "Intro",
    type: "one-time",
    subject: "Hello {{ contact.name }}",
    bodyMarkdown: "Hi.",
    sendingDomainId: setup.domain.id,
    followUps: [FOLLOW_UP],
  });
  expect(created.status).toBe(201);
  const id = created.body.campaign.id as string;
  expect((await post(server, token, `/api/v1/campaigns/${id}/launch`, {})).status).toBe(200);
  return id;
}

describe("follow-up steps over HTTP", () => {
  it("stores followUps, stopScope, stopOnAutoReply and sendWindow on create and PATCH of a draft", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const created = await post(server, instance.token, "/api/v1/campaigns", {
      name: "Intro",
      type: "one-time",
      subject: "Hello",
      bodyMarkdown: "Hi {{ contact.name }}",
      followUps: [FOLLOW_UP, { delay: "p3d", subject: "Still there, {{ contact.name }}?", bodyMarkdown: "Again." }],
      stopScope: "domain",
      stopOnAutoReply: true,
      sendWindow: { days: ["fri", "mon"], start: "09:00", end: "17:30", timeZone: "Europe/Berlin" },
    });
    expect(created.status).toBe(201);
    expect(created.body.campaign).toMatchObject({
      followUps: [
        { delay: "PT1M", subject: null, bodyMarkdown: FOLLOW_UP.bodyMarkdown },
        { delay: "P3D", subject: "Still there, {{ contact.name }}?", bodyMarkdown: "Again." },
      ],
      stopScope: "domain",
      stopOnAutoReply: true,
      sendWindow: { days: ["mon", "fri"], start: "09:00", end: "17:30", timeZone: "Europe/Berlin" },
    });
    const id = created.body.campaign.id;
    const changed = await patch(server, instance.token, id, { followUps: [], sendWindow: null, stopScope: "contact" });
    expect(changed.status).toBe(200);
    expect(changed.body.campaign).toMatchObject({ followUps: [], sendWindow: null, stopScope: "contact", stopOnAutoReply: true });
  });

  it("refuses bad steps and windows with a 400 naming the step and the field, and saves nothing", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const base = { name: "n", type: "one-time", subject: "s", bodyMarkdown: "b" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ followUps: [{ ...FOLLOW_UP, delay: "P61D" }] }, "followUps[0].delay must be at most P60D"],
      [{ followUps: [FOLLOW_UP, { ...FOLLOW_UP, delay: "PT30S" }] }, "followUps[1].delay must be at least PT1M"],
      [{ followUps: [{ ...FOLLOW_UP, delay: "1 day" }] }, "followUps[0].delay must be an ISO 8601 duration"],
      [{ followUps: [{ ...FOLLOW_UP, delay: "P1M" }] }, "followUps[0].delay must not use years or months"],
      [{ followUps: Array.from({ length: 10 }, () => FOLLOW_UP) }, "followUps must have at most 9 items"],
      [{ followUps: [FOLLOW_UP, { delay: "P1D", bodyMarkdown: "Hi {{ contact.nme }}" }] }, "followUps[1].bodyMarkdown uses an unknown variable contact.nme"],
      [{ followUps: [{ ...FOLLOW_UP, subject: "Re {{ brand.colour }}" }] }, "followUps[0].subject uses an unknown variable brand.colour"],
      [{ followUps: [{ delay: "P1D" }] }, "followUps[0].bodyMarkdown is required"],
      [{ sendWindow: { days: ["mon"], start: "17:00", end: "09:00" } }, "sendWindow.end must be later than start"],
      [{ sendWindow: { days: ["someday"], start: "09:00", end: "17:00" } }, "sendWindow.days[0] must be one of"],
      [{ sendWindow: { days: ["mon"], start: "9am", end: "17:00" } }, "sendWindow.start must be a local time HH:MM"],
      [{ sendWindow: { days: ["mon"], start: "09:00", end: "17:00", timeZone: "Mars/Olympus" } }, "sendWindow.timeZone"],
      [{ stopScope: "street" }, 'stopScope must be one of "contact", "domain"'],
    ];
    for (const [extra, message] of cases) {
      const res = await post(server, instance.token, "/api/v1/campaigns", { ...base, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error).toContain(message);
    }
    const list = await (await server.request("/api/v1/campaigns", { token: instance.token })).json();
    expect(list.total).toBe(0);
  });

  it("refuses a PATCH of the steps after launch (409) and keeps them", async () => {
    const setup = await sendingSetup();
    const server = await startTestServer(setup.instance.services);
    const id = await launched(setup, server);
    const res = await patch(server, setup.instance.token, id, { followUps: [] });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/only a draft can be edited/);
    const read = await (await server.request(`/api/v1/campaigns/${id}`, { token: setup.instance.token })).json();
    expect(read.campaign.followUps).toHaveLength(1);
  });
});

describe("preview of a follow-up step", () => {
  it("renders step n in its thread, or with its own subject; a step that does not exist is a 400", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const token = instance.token;
    const contactId = instance.services.contacts.add(instance.teamId, { email: "lin@example.com", name: "Lin" }).id;
    const created = await post(server, token, "/api/v1/campaigns", {
      name: "Intro",
      type: "one-time",
      subject: "Hello {{ contact.name }}",
      bodyMarkdown: "Hi.",
      followUps: [FOLLOW_UP, { delay: "P3D", subject: "Last note for {{ contact.name }}", bodyMarkdown: "Bye." }],
    });
    const id = created.body.campaign.id;
    const preview = async (step: string) => {
      const res = await server.request(`/api/v1/campaigns/${id}/preview?contactId=${contactId}&step=${step}`, { token });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const first = await preview("1");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ subject: "Re: Hello Lin", headers: { "In-Reply-To": "<exe_preview_step0@example.invalid>", References: "<exe_preview_step0@example.invalid>" } });
    expect(first.body.text).toContain("Following up, Lin.");
    const last = await preview("2");
    expect(last.body.subject).toBe("Last note for Lin");
    expect(last.body.headers).not.toHaveProperty("In-Reply-To");
    const missing = await preview("3");
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/step 3 does not exist: the campaign has 2 follow-up step\(s\)/);
    expect((await preview("x")).status).toBe(400);
  });
});

describe("cancel and resolve over HTTP", () => {
  it("cancels a launched one-time campaign; 409 for a draft, a lifetime campaign and a finished one", async () => {
    const setup = await sendingSetup();
    const server = await startTestServer(setup.instance.services);
    const token = setup.instance.token;
    const id = await launched(setup, server);
    const cancelled = await post(server, token, `/api/v1/campaigns/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ campaign: { status: "cancelled" }, cancelled: 2 });
    expect((await post(server, token, `/api/v1/campaigns/${id}/cancel`)).body).toMatchObject({ cancelled: 0 });

    const draft = await post(server, token, "/api/v1/campaigns", { name: "d", type: "one-time", subject: "s" });
    const draftCancel = await post(server, token, `/api/v1/campaigns/${draft.body.campaign.id}/cancel`);
    expect(draftCancel.status).toBe(409);
    expect(draftCancel.body.error).toMatch(/never launched/);
    const lifetime = await post(server, token, "/api/v1/campaigns", { name: "l", type: "lifetime", subject: "s" });
    const lifetimeCancel = await post(server, token, `/api/v1/campaigns/${lifetime.body.campaign.id}/cancel`);
    expect(lifetimeCancel.status).toBe(409);
    expect(lifetimeCancel.body.error).toMatch(/pause or archive/);
    expect((await post(server, token, "/api/v1/campaigns/cmp_unknown/cancel")).status).toBe(404);
  });

  it("lists unconfirmed executions; confirm lets the sequence go on, resend queues it once more; anything else is 409", async () => {
    const setup = await sendingSetup();
    const server = await startTestServer(setup.instance.services);
    const token = setup.instance.token;
    const { services, clock } = setup.instance;
    const id = await launched(setup, server);
    // As the recovery leaves it: both step-0 messages were handed over and their answer lost.
    const db = services.deps.db;
    const stamp = clock.now().toISOString();
    db.prepare("UPDATE campaign_executions SET status = 'sent', unconfirmed = 1, sent_at = ?, message_id = '<' || id || '@acme-dental.test>' WHERE campaign_id = ?").run(stamp, id);

    const list = await (await server.request(`/api/v1/campaigns/${id}/executions?unconfirmed=true`, { token })).json();
    expect(list.total).toBe(2);
    const [first, second] = list.executions as Array<{ id: string; contactId: string }>;
    const resolve = (executionId: string, action: string) => post(server, token, `/api/v1/campaigns/${id}/executions/${executionId}/resolve`, { action });

    const confirmed = await resolve(first!.id, "confirm");
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.execution).toMatchObject({ status: "sent", unconfirmed: false, error: null });
    // Its step 1 now exists, due a minute after it was sent.
    const steps = (await (await server.request(`/api/v1/campaigns/${id}/executions?status=pending`, { token })).json()).executions;
    expect(steps).toEqual([expect.objectContaining({ contactId: first!.contactId, step: 1, nextAttemptAt: new Date(Date.parse(stamp) + MINUTE).toISOString() })]);
    expect((await resolve(first!.id, "confirm")).status).toBe(409);

    const resent = await resolve(second!.id, "resend");
    expect(resent.status).toBe(200);
    expect(resent.body.execution).toMatchObject({ status: "pending", unconfirmed: false, sentAt: null });
    expect((await resolve(second!.id, "resend")).status).toBe(409);
    expect((await resolve(second!.id, "shred")).status).toBe(400);
    expect((await resolve("exe_unknown", "confirm")).status).toBe(404);

    // The resent one goes out exactly once more, with its Message-ID; then its follow-up.
    await setup.delivery().runUntilEmpty();
    expect(setup.sink.received).toHaveLength(1);
    clock.advance(MINUTE);
    await setup.delivery().runUntilEmpty();
    // The confirmed contact gets its follow-up only; the resent one its step 0 again, then its follow-up.
    const emailOf = (contactId: string) => services.contacts.get(setup.instance.teamId, contactId).email;
    const received = (contactId: string) => setup.sink.received.filter((m) => m.rcptTo[0] === emailOf(contactId)).length;
    expect(received(first!.contactId)).toBe(1);
    expect(received(second!.contactId)).toBe(2);
    const after = (await (await server.request(`/api/v1/campaigns/${id}`, { token })).json()) as { campaign: { status: string }; executionCounts: Record<string, number> };
    expect(after.executionCounts).toMatchObject({ sent: 4, pending: 0, replied: 0 });
    expect(after.campaign.status).toBe("sent");
  });
});

describe("OpenAPI document: sequences", () => {
  it("marks the new operations and fields as additions", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const doc = (await (await server.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { operationId: string; "x-addition"?: boolean }>>;
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    expect(doc.paths["/api/v1/campaigns/{id}/cancel"]?.post).toMatchObject({ operationId: "cancelCampaign", "x-addition": true });
    expect(doc.paths["/api/v1/campaigns/{id}/executions/{executionId}/resolve"]?.post).toMatchObject({ operationId: "resolveCampaignExecution", "x-addition": true });
    const { Campaign, CampaignExecution, Contact, BrandSettings } = doc.components.schemas;
    for (const [schema, field] of [[Campaign, "followUps"], [Campaign, "stopScope"], [Campaign, "stopOnAutoReply"], [Campaign, "sendWindow"], [CampaignExecution, "repliedAt"], [Contact, "timeZone"], [BrandSettings, "timeZone"]] as const) {
      expect(schema!.properties[field]?.description, field).toMatch(/^Addition \(sequences\)/);
    }
  });
});
