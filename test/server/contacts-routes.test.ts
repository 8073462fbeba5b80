import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

async function setup(plan?: string) {
  const t = createTestInstance({ plan });
  const server = await startTestServer(t.services);
  const add = (json: unknown, token = t.token) => server.request("/api/v1/contacts/add", { method: "POST", token, json });
  return { t, server, add };
}

describe("contact routes over a real socket", () => {
  it("creates, reads, updates, lists and deletes a contact", async () => {
    const { t, server, add } = await setup();
    const created = await add({ email: "lin@example.com", name: "Lin", phone: "+41 79 000 00 00", tags: ["lead", "lead", "zurich"] });
    expect(created.status).toBe(200);
    const body = await created.json();
    expect(body).toEqual({ success: true, contact: { id: expect.stringMatching(/^ct_[0-9A-Za-z]{16}$/) } });
    const id = body.contact.id;

    const shown = await (await server.request(`/api/v1/contacts/${id}`, { token: t.token })).json();
    expect(shown.contact).toEqual({
      id,
      email: "lin@example.com",
      name: "Lin",
      phone: "+41 79 000 00 00",
      description: null,
      status: "active",
      tags: ["lead", "zurich"],
      timeZone: null,
      verification: null,
      createdAt: "2026-11-22T10:00:00.000Z",
      updatedAt: "2026-11-22T10:00:00.000Z",
    });

    t.clock.advance(60_000);
    const patched = await server.request(`/api/v1/contacts/${id}`, { method: "PATCH", token: t.token, json: { description: "met at fair", tags: [] } });
    expect(patched.status).toBe(200);
    expect((await patched.json()).contact).toMatchObject({ description: "met at fair", tags: [], name: "Lin", updatedAt: "2026-11-22T10:01:00.000Z" });

    const list = await (await server.request("/api/v1/contacts?search=LIN@&status=active&limit=5", { token: t.token })).json();
    expect(list).toMatchObject({ total: 1, page: 1, limit: 5, totalPages: 1, contacts: [{ id }] });

    const deleted = await server.request(`/api/v1/contacts/${id}`, { method: "DELETE", token: t.token });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ success: true });
    expect((await server.request(`/api/v1/contacts/${id}`, { token: t.token })).status).toBe(404);
  });

  it("answers 409 for a duplicate email in another case", async () => {
    const { add } = await setup();
    expect((await add({ email: "Dup@Example.com", name: "A" })).status).toBe(200);
    const res = await add({ email: "dup@example.COM", name: "B" });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatch(/already exists/);
  });

  it.each([
    [{ name: "No email" }, /invalid body: email is required/],
    [{ email: "not-an-email", name: "X" }, /invalid body: email must be a valid email address/],
    [{ email: `${"a".repeat(250)}@x.io`, name: "X" }, /invalid body: email must be at most 254 characters/],
    [{ email: "a@x.io" }, /invalid body: name is required/],
    [{ email: "a@x.io", name: "   " }, /invalid body: name must be at least 1 character/],
    [{ email: "a@x.io", name: "x".repeat(201) }, /invalid body: name must be at most 200 characters/],
    [{ email: "a@x.io", name: "X", phone: "call me" }, /invalid body: phone must be a phone number/],
    [{ email: "a@x.io", name: "X", phone: "1".repeat(65) }, /invalid body: phone must be at most 64/],
    [{ email: "a@x.io", name: "X", description: "d".repeat(2001) }, /invalid body: description must be at most 2000/],
    [{ email: "a@x.io", name: "X", tags: "lead" }, /invalid body: tags must be an array/],
    [{ email: "a@x.io", name: "X", tags: ["a,b"] }, /invalid body: tags\[0\] must not contain commas/],
    [{ email: "a@x.io", name: "X", tags: ["t".repeat(65)] }, /invalid body: tags\[0\] must be at most 64/],
    [{ email: "a@x.io", name: "X", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /invalid body: tags must have at most 50 items/],
    [{ email: "a@x.io", name: "X", status: "spam" }, /invalid body: status must be one of "active", "unsubscribed", "bounced"/],
    [{ email: "a@x.io", name: "X", company: "Acme" }, /invalid body: company is not a known field/],
  ])("answers 400 naming the field (case %#)", async (json, message) => {
    const { add, t } = await setup();
    const res = await add(json);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(message);
    expect(t.services.contacts.count(t.teamId)).toBe(0);
  });

  it("answers 400 for an empty or unknown update and for out-of-range list parameters", async () => {
    const { add, server, t } = await setup();
    const { contact } = await (await add({ email: "u@x.io", name: "U" })).json();
    const empty = await server.request(`/api/v1/contacts/${contact.id}`, { method: "PATCH", token: t.token, json: {} });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error).toMatch(/at least one of email, name, phone, description, tags/);
    const status = await server.request(`/api/v1/contacts/${contact.id}`, { method: "PATCH", token: t.token, json: { status: "active" } });
    expect((await status.json()).error).toMatch(/invalid body: status is not a known field/);
    for (const [qs, message] of [
      ["limit=0", /invalid query: limit must be at least 1/],
      ["limit=101", /invalid query: limit must be at most 100/],
      ["page=0", /invalid query: page must be at least 1/],
      ["page=two", /invalid query: page must be a whole number/],
      ["status=active,gone", /invalid query: status\[1\] must be one of/],
      ["sort=name", /invalid query: sort is not a known field/],
    ] as const) {
      const res = await server.request(`/api/v1/contacts?${qs}`, { token: t.token });
      expect(res.status, qs).toBe(400);
      expect((await res.json()).error, qs).toMatch(message);
    }
  });

  it("answers 404 on every route for another workspace's contact", async () => {
    const { t, server, add } = await setup();
    const { contact } = await (await add({ email: "mine@x.io", name: "Mine" })).json();
    const team2 = t.services.identity.createTeam({ name: "Other", ownerId: t.userId, plan: "self-hosted" });
    const stranger = t.addUser({ email: "eve@evil.example", role: "owner", teamSlug: team2.slug });
    for (const [method, json] of [["GET", undefined], ["PATCH", { name: "pwned" }], ["DELETE", undefined]] as const) {
      const res = await server.request(`/api/v1/contacts/${contact.id}`, { method, token: stranger.token, json });
      expect(res.status, method).toBe(404);
      expect((await res.json()).error).toBe(`contact ${contact.id} not found`);
    }
    const list = await (await server.request("/api/v1/contacts", { token: stranger.token })).json();
    expect(list.total).toBe(0);
    expect(t.services.contacts.get(t.teamId, contact.id).name).toBe("Mine");
  });

  it("answers 403 contact_limit_reached at the plan's limit", async () => {
    const { t, add } = await setup("free");
    t.services.plans.set("free", { maxContacts: 1 });
    expect((await add({ email: "one@x.io", name: "One" })).status).toBe(200);
    const res = await add({ email: "two@x.io", name: "Two" });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe("the workspace has reached its plan's limit of 1 contacts");
  });

  it("imports a batch reporting each item, and documents the routes in OpenAPI", async () => {
    const { t, server, add } = await setup();
    await add({ email: "old@x.io", name: "Old" });
    const res = await server.request("/api/v1/contacts/import", {
      method: "POST",
      token: t.token,
      json: { tags: ["fair"], contacts: [{ email: "new@x.io", name: "New" }, { email: "OLD@x.io", name: "Again" }, { email: "bad", name: "Bad" }, { email: "new@X.io", name: "Twice" }] },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ created: 1, duplicates: 2, invalid: 1, limitReached: 0 });
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(["created", "duplicate", "invalid", "duplicate"]);
    expect(body.results[2].error).toMatch(/email must be a valid email address/);
    expect(t.services.contacts.get(t.teamId, body.results[0].id).tags).toEqual(["fair"]);
    const doc = await (await server.request("/api/v1/openapi.json")).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/contacts", "/api/v1/contacts/add", "/api/v1/contacts/import", "/api/v1/contacts/{id}"]));
  });
});
