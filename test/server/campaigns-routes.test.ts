import { describe, expect, it } from "vitest";
import { insertContact } from "../helpers/contacts.js";
import { createTestInstance, type TestInstance } from "../helpers/instance.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { otherWorkspace } from "../helpers/workspaces.js";

async function setup() {
  const instance = createTestInstance();
  const server = await startTestServer(instance.services);
  return { instance, server };
}

async function createCampaign(server: TestServer, token: string, body: Record<string, unknown> = {}) {
  const res = await server.request("/api/v1/campaigns", {
    method: "POST",
    token,
    json: { name: "Welcome series", type: "lifetime", subject: "Welcome to Acme", ...body },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { campaign: Record<string, unknown> & { id: string; status: string } }).campaign;
}

function lifecycle(server: TestServer, token: string, id: string, body: Record<string, unknown>) {
  return server.request(`/api/v1/campaigns/${id}/lifecycle`, { method: "PATCH", token, json: body });
}

async function activeCampaign(server: TestServer, token: string) {
  const campaign = await createCampaign(server, token);
  expect((await lifecycle(server, token, campaign.id, { status: "active" })).status).toBe(200);
  return campaign.id;
}

async function createKey(server: TestServer, token: string, scopes = ["campaigns:trigger"]) {
  const res = await server.request("/api/v1/settings/team-api-keys", { method: "POST", token, json: { name: "Webhook", scopes } });
  expect(res.status).toBe(201);
  return (await res.json()) as { apiKey: { id: string }; key: string };
}

function trigger(server: TestServer, key: string, campaignId: string, contactId: string) {
  return server.request(`/api/v1/campaigns/${campaignId}/trigger`, { method: "POST", token: key, json: { contactId } });
}

function setStatus(instance: TestInstance, id: string, status: string) {
  instance.services.deps.db.prepare("UPDATE campaigns SET status = ? WHERE id = ?").run(status, id);
}

describe("campaign routes over a real socket", () => {
  it("creates a lifetime campaign as a draft with every 2.7 field", async () => {
    const { server, instance } = await setup();
    const campaign = await createCampaign(server, instance.token);
    expect(campaign).toEqual({
      id: expect.stringMatching(/^cmp_[0-9A-Za-z]{16}$/),
      name: "Welcome series",
      type: "lifetime",
      status: "draft",
      subject: "Welcome to Acme",
      bodyMarkdown: "",
      sendingDomainId: null,
      scheduledAt: null,
      sentAt: null,
      launchedAt: null,
      followUps: [],
      stopScope: "contact",
      stopOnAutoReply: false,
      sendWindow: null,
      createdAt: "2026-11-22T10:00:00.000Z",
      updatedAt: "2026-11-22T10:00:00.000Z",
    });
    const read = await server.request(`/api/v1/campaigns/${campaign.id}`, { token: instance.token });
    expect(read.status).toBe(200);
    const counts = { pending: 0, queued: 0, sending: 0, sent: 0, failed: 0, cancelled: 0, bounced: 0, skipped: 0, replied: 0 };
    expect(await read.json()).toEqual({ campaign, executionCounts: counts, unsubscribed: 0 });
  });

  it("schedules a one-time campaign with a future date, normalised to UTC", async () => {
    const { server, instance } = await setup();
    const campaign = await createCampaign(server, instance.token, { type: "one-time", scheduledAt: "2026-11-23T09:30:00+01:00" });
    expect(campaign).toMatchObject({ type: "one-time", status: "scheduled", scheduledAt: "2026-11-23T08:30:00.000Z" });
    const draft = await createCampaign(server, instance.token, { type: "one-time" });
    expect(draft.status).toBe("draft");
  });

  it("refuses bad creation bodies with a 400 naming the field", async () => {
    const { server, instance } = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: "", type: "lifetime", subject: "s" }, "name must be at least 1 character long"],
      [{ name: "n", type: "weekly", subject: "s" }, 'type must be one of "one-time", "lifetime"'],
      [{ name: "n", type: "lifetime" }, "subject is required"],
      [{ name: "n", type: "lifetime", subject: "s", colour: "red" }, "colour is not a known field"],
      [{ name: "n", type: "one-time", subject: "s", scheduledAt: "tomorrow" }, "scheduledAt must be an ISO 8601 date-time"],
      [{ name: "n", type: "one-time", subject: "s", scheduledAt: "2026-11-01T00:00:00Z" }, "scheduledAt must be in the future"],
      [{ name: "n", type: "lifetime", subject: "s", scheduledAt: "2026-12-01T00:00:00Z" }, "scheduledAt applies to one-time campaigns only"],
    ];
    for (const [json, message] of cases) {
      const res = await server.request("/api/v1/campaigns", { method: "POST", token: instance.token, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain(message);
    }
    const list = await (await server.request("/api/v1/campaigns", { token: instance.token })).json();
    expect(list.total).toBe(0);
  });

  it("lists campaigns newest first with pagination and status/type filters", async () => {
    const { server, instance } = await setup();
    const ids: string[] = [];
    for (const type of ["lifetime", "one-time", "lifetime"]) {
      ids.push((await createCampaign(server, instance.token, { type })).id);
      instance.clock.advance(1000);
    }
    const page1 = await (await server.request("/api/v1/campaigns?limit=2", { token: instance.token })).json();
    expect(page1).toMatchObject({ total: 3, page: 1, limit: 2, totalPages: 2 });
    expect(page1.campaigns.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const page2 = await (await server.request("/api/v1/campaigns?limit=2&page=2", { token: instance.token })).json();
    expect(page2.campaigns.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    const lifetime = await (await server.request("/api/v1/campaigns?type=lifetime", { token: instance.token })).json();
    expect(lifetime.total).toBe(2);
    await lifecycle(server, instance.token, ids[0]!, { status: "active" });
    const active = await (await server.request("/api/v1/campaigns?status=active,paused", { token: instance.token })).json();
    expect(active.campaigns.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    for (const bad of ["limit=0", "limit=101", "page=0", "status=running", "type=weekly", "sort=name"]) {
      const res = await server.request(`/api/v1/campaigns?${bad}`, { token: instance.token });
      expect(res.status, bad).toBe(400);
    }
  });

  it("lists nothing of another workspace and answers 404 for its campaign", async () => {
    const { server, instance } = await setup();
    const campaign = await createCampaign(server, instance.token);
    const other = otherWorkspace(instance);
    expect((await server.request(`/api/v1/campaigns/${campaign.id}`, { token: other.token })).status).toBe(404);
    expect((await lifecycle(server, other.token, campaign.id, { status: "active" })).status).toBe(404);
    expect((await server.request(`/api/v1/campaigns/${campaign.id}/executions`, { token: other.token })).status).toBe(404);
    const list = await (await server.request("/api/v1/campaigns", { token: other.token })).json();
    expect(list).toEqual({ campaigns: [], total: 0, page: 1, limit: 20, totalPages: 0 });
    expect((await server.request("/api/v1/campaigns/cmp_doesnotexist0000", { token: instance.token })).status).toBe(404);
  });

  it("answers an illegal move with 409 naming the current status and the allowed targets", async () => {
    const { server, instance } = await setup();
    const campaign = await createCampaign(server, instance.token);
    const res = await lifecycle(server, instance.token, campaign.id, { status: "paused" });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: `campaign ${campaign.id} is draft and cannot move to paused: it can move to active` });
    const bad = await lifecycle(server, instance.token, campaign.id, { status: "draft" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toContain('status must be one of "active", "paused", "archived"');
  });

  it("answers the same status with 200 and the campaign unchanged", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const before = await (await server.request(`/api/v1/campaigns/${id}`, { token: instance.token })).json();
    instance.clock.advance(60_000);
    const res = await lifecycle(server, instance.token, id, { status: "active" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ campaign: before.campaign });
  });

  it("lets exactly one of two conflicting transitions win when both are sent at once", async () => {
    const { server, instance } = await setup();
    for (let round = 0; round < 6; round++) {
      const id = await activeCampaign(server, instance.token);
      // Two clients saw the campaign active; one wants it paused, the other archived.
      const [a, b] = await Promise.all([
        lifecycle(server, instance.token, id, { status: "paused", expectedStatus: "active" }),
        lifecycle(server, instance.token, id, { status: "archived", expectedStatus: "active" }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const winner = a.status === 200 ? "paused" : "archived";
      const loser = (await (a.status === 409 ? a : b).json()) as { error: string };
      expect(loser.error).toBe(`campaign ${id} is ${winner}, not active as expected: it was changed meanwhile`);
      const now = await (await server.request(`/api/v1/campaigns/${id}`, { token: instance.token })).json();
      expect(now.campaign.status).toBe(winner);
    }
  });

  it("serialises conflicting transitions without a precondition: the outcome matches one order", async () => {
    const { server, instance } = await setup();
    for (let round = 0; round < 6; round++) {
      const id = await activeCampaign(server, instance.token);
      const [pause, archive] = await Promise.all([
        lifecycle(server, instance.token, id, { status: "paused" }),
        lifecycle(server, instance.token, id, { status: "archived" }),
      ]);
      // pause then archive: both legal. archive then pause: archived is final, the pause is a 409.
      expect(archive.status).toBe(200);
      expect([200, 409]).toContain(pause.status);
      if (pause.status === 409) expect((await pause.json()).error).toContain("is archived and cannot move to paused");
      const now = await (await server.request(`/api/v1/campaigns/${id}`, { token: instance.token })).json();
      expect(now.campaign.status).toBe("archived");
    }
  });
});

describe("lifetime triggers", () => {
  it("queues an execution for an active campaign with a campaigns:trigger key, once", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const contactId = insertContact(instance.services, instance.teamId);
    const { key } = await createKey(server, instance.token);
    const first = await trigger(server, key, id, contactId);
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toEqual({
      created: true,
      execution: {
        id: expect.stringMatching(/^exe_/),
        campaignId: id,
        contactId,
        step: 0,
        status: "pending",
        attempts: 0,
        nextAttemptAt: "2026-11-22T10:00:00.000Z",
        messageId: null,
        sentAt: null,
        error: null,
        unconfirmed: false,
        repliedAt: null,
        createdAt: "2026-11-22T10:00:00.000Z",
        updatedAt: "2026-11-22T10:00:00.000Z",
      },
    });
    const again = await (await trigger(server, key, id, contactId)).json();
    expect(again).toEqual({ created: false, execution: body.execution });
    const list = await (await server.request(`/api/v1/campaigns/${id}/executions`, { token: instance.token })).json();
    expect(list).toEqual({ executions: [body.execution], total: 1, page: 1, limit: 20, totalPages: 1 });
  });

  it("cancels queued executions on pause and re-queues the same row when triggered after resuming", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const contactId = insertContact(instance.services, instance.teamId);
    const { key } = await createKey(server, instance.token);
    const queued = (await (await trigger(server, key, id, contactId)).json()).execution;
    await lifecycle(server, instance.token, id, { status: "paused" });
    const cancelled = await (await server.request(`/api/v1/campaigns/${id}/executions?status=cancelled`, { token: instance.token })).json();
    expect(cancelled.executions.map((e: { id: string }) => e.id)).toEqual([queued.id]);
    expect((await trigger(server, key, id, contactId)).status).toBe(409);
    await lifecycle(server, instance.token, id, { status: "active" });
    const requeued = await (await trigger(server, key, id, contactId)).json();
    expect(requeued).toMatchObject({ created: true, execution: { id: queued.id, status: "pending" } });
    const count = instance.services.deps.db.prepare("SELECT count(*) AS n FROM campaign_executions WHERE campaign_id = ?").get(id) as { n: number };
    expect(count.n).toBe(1);
  });

  it("refuses draft, paused and archived campaigns with 409 naming the status", async () => {
    const { server, instance } = await setup();
    const contactId = insertContact(instance.services, instance.teamId);
    const { key } = await createKey(server, instance.token);
    for (const status of ["draft", "paused", "archived"]) {
      const campaign = await createCampaign(server, instance.token);
      setStatus(instance, campaign.id, status);
      const res = await trigger(server, key, campaign.id, contactId);
      expect(res.status, status).toBe(409);
      expect((await res.json()).error).toBe(`campaign ${campaign.id} is ${status}: only active lifetime campaigns accept triggers`);
    }
    const oneTime = await createCampaign(server, instance.token, { type: "one-time" });
    const res = await trigger(server, key, oneTime.id, contactId);
    expect(res.status).toBe(409);
    expect((await res.json()).error).toBe("triggers apply to lifetime campaigns");
    expect((instance.services.deps.db.prepare("SELECT count(*) AS n FROM campaign_executions").get() as { n: number }).n).toBe(0);
  });

  it("refuses a personal access token with 403", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const contactId = insertContact(instance.services, instance.teamId);
    const res = await trigger(server, instance.token, id, contactId);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe("this endpoint needs a team API key, not a personal access token");
  });

  it("refuses a key without the campaigns:trigger scope with 403", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const contactId = insertContact(instance.services, instance.teamId);
    const { apiKey, key } = await createKey(server, instance.token);
    // A key whose scopes do not include the trigger (as one created for another purpose would).
    instance.services.deps.db.prepare(`UPDATE team_api_keys SET scopes = '["contacts:read"]' WHERE id = ?`).run(apiKey.id);
    const res = await trigger(server, key, id, contactId);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe("this team API key lacks the scope campaigns:trigger");
  });

  it("answers 404 to a key of another workspace, and for another workspace's contact", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const contactId = insertContact(instance.services, instance.teamId);
    const other = otherWorkspace(instance);
    const { key: foreignKey } = await createKey(server, other.token);
    const res = await trigger(server, foreignKey, id, contactId);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe(`campaign ${id} not found`);
    const foreignContact = insertContact(instance.services, other.teamId);
    const { key } = await createKey(server, instance.token);
    const res2 = await trigger(server, key, id, foreignContact);
    expect(res2.status).toBe(404);
    expect((await res2.json()).error).toBe(`contact ${foreignContact} not found`);
  });

  it("refuses an unsubscribed contact with 409 and queues nothing", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const contactId = insertContact(instance.services, instance.teamId, { status: "unsubscribed" });
    const { key } = await createKey(server, instance.token);
    const res = await trigger(server, key, id, contactId);
    expect(res.status).toBe(409);
    expect((await res.json()).error).toContain("is unsubscribed");
  });

  it("refuses a missing or unknown contactId with 400", async () => {
    const { server, instance } = await setup();
    const id = await activeCampaign(server, instance.token);
    const { key } = await createKey(server, instance.token);
    const res = await server.request(`/api/v1/campaigns/${id}/trigger`, { method: "POST", token: key, json: { contact: "x" } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("invalid body: contactId is required; contact is not a known field");
  });
});
