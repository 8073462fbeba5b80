import { describe, expect, it } from "vitest";
import { operations } from "../../src/core/contract/index.js";
import { createTestInstance } from "../helpers/instance.js";
import { sendingSetup } from "../helpers/sending.js";
import { startTestServer } from "../helpers/server.js";

async function setup() {
  const instance = createTestInstance();
  const server = await startTestServer(instance.services);
  const post = (path: string, json: unknown, key?: string, token = instance.token) =>
    server.request(path, { method: "POST", token, json, headers: key === undefined ? {} : { "idempotency-key": key } });
  const contactCount = () => instance.services.contacts.count(instance.teamId);
  return { instance, server, post, contactCount };
}

describe("Idempotency-Key", () => {
  it("is a property of the contract: the POSTs that create or send take it", () => {
    const idempotent = operations.filter((o) => o.idempotent).map((o) => o.id).sort();
    expect(idempotent).toEqual(["campaigns.create", "campaigns.launch", "campaigns.resolveExecution", "campaigns.trigger", "contacts.add", "contacts.import", "sendingDomains.add", "teamApiKeys.create", "userTokens.create"]);
    for (const o of operations.filter((op) => op.idempotent)) expect(o.method).toBe("POST");
  });

  it("a repeat with the same key and body replays the first answer without doing the work again", async () => {
    const { post, contactCount } = await setup();
    const body = { email: "ada@example.org", name: "Ada" };
    const first = await post("/api/v1/contacts/add", body, "key-1");
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    const again = await post("/api/v1/contacts/add", { name: "Ada", email: "ada@example.org" }, "key-1");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(firstBody);
    expect(contactCount()).toBe(1);
    // Without the key the same body is a new request: here a duplicate email.
    expect((await post("/api/v1/contacts/add", body)).status).toBe(409);
  });

  it("a launch repeated with its key (a client retrying after a lost answer) replays the first 200 instead of a 409, and queues nothing twice", async () => {
    const sending = await sendingSetup();
    const { instance } = sending;
    sending.addContact("ada@example.org");
    sending.addContact("bob@example.org");
    const campaign = await instance.services.campaigns.create(sending.principal, { name: "Launch once", type: "one-time", subject: "Hi {{ contact.name }}", bodyMarkdown: "Hello.", sendingDomainId: sending.domain.id });
    const server = await startTestServer(instance.services);
    const launch = (key?: string) =>
      server.request(`/api/v1/campaigns/${campaign.id}/launch`, { method: "POST", token: instance.token, json: {}, headers: key === undefined ? {} : { "idempotency-key": key } });
    const first = await launch("launch-1");
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    expect(firstBody).toMatchObject({ queued: 2 });
    const again = await launch("launch-1");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(firstBody);
    // Without the key a second launch is what it is: a 409.
    expect((await launch()).status).toBe(409);
    expect(instance.services.campaigns.executions(sending.principal, campaign.id, { page: 1, limit: 100 }).total).toBe(2);
  });

  it("the same key with another body, or for another operation, is a 409 and does nothing", async () => {
    const { post, contactCount } = await setup();
    expect((await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" }, "k")).status).toBe(200);
    const other = await post("/api/v1/contacts/add", { email: "b@example.org", name: "B" }, "k");
    expect(other.status).toBe(409);
    expect((await other.json()).error).toMatch(/Idempotency-Key: this key was used with another request/);
    const elsewhere = await post("/api/v1/contacts/import", { contacts: [{ email: "c@example.org", name: "C" }] }, "k");
    expect(elsewhere.status).toBe(409);
    expect(contactCount()).toBe(1);
  });

  it("answers that are not server failures are remembered too (a 409 is replayed as a 409)", async () => {
    const { post, contactCount } = await setup();
    await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" });
    const dup = await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" }, "dup");
    expect(dup.status).toBe(409);
    const replay = await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" }, "dup");
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(contactCount()).toBe(1);
  });

  it("keys are per workspace and last 24 hours", async () => {
    const { instance, post, contactCount } = await setup();
    const bob = instance.services.identity.bootstrap({ name: "Bob", email: "bob@example.com", team: "Bobco", plan: "self-hosted" });
    expect((await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" }, "shared")).status).toBe(200);
    const theirs = await post("/api/v1/contacts/add", { email: "z@example.org", name: "Z" }, "shared", bob.token);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    instance.clock.advance(24 * 3600 * 1000 + 1);
    // A day later the key is forgotten: the request runs again (and finds the contact there).
    const later = await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" }, "shared");
    expect(later.status).toBe(409);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(contactCount()).toBe(1);
  });

  it("concurrent duplicates never both run: one import of 500 contacts, the others wait or replay", async () => {
    const { post, contactCount } = await setup();
    const contacts = Array.from({ length: 500 }, (_, i) => ({ email: `p${i}@example.org`, name: `P ${i}` }));
    const answers = await Promise.all(Array.from({ length: 6 }, () => post("/api/v1/contacts/import", { contacts }, "bulk")));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ran = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null);
    expect(ran).toHaveLength(1);
    expect(await ran[0]!.json()).toMatchObject({ created: 500 });
    for (const a of answers.filter((x) => x.status === 409)) expect((await a.json()).error).toMatch(/still being processed/);
    expect(contactCount()).toBe(500);
    const after = await post("/api/v1/contacts/import", { contacts }, "bulk");
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(await after.json()).toMatchObject({ created: 500, duplicates: 0 });
  });

  it("a malformed key is a 400 naming the header; operations that do not create ignore it", async () => {
    const { post, server, instance } = await setup();
    const long = await post("/api/v1/contacts/add", { email: "a@example.org", name: "A" }, "x".repeat(256));
    expect(long.status).toBe(400);
    expect((await long.json()).error).toMatch(/^Idempotency-Key: must be 1 to 255/);
    const res = await server.request("/api/v1/teams", { token: instance.token, headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(200);
  });
});

describe("Idempotency-Key in the OpenAPI document", () => {
  it("every idempotent operation documents the header and its 409; others do not", async () => {
    const { server } = await setup();
    const doc = (await (await server.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown>; "x-idempotent"?: boolean }>>;
    };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const withHeader = ops.filter((o) => o.parameters?.some((p) => p.in === "header" && p.name === "Idempotency-Key"));
    expect(withHeader.map((o) => o.operationId).sort()).toEqual(
      operations.filter((o) => o.idempotent).map((o) => o.operationId).sort(),
    );
    for (const o of withHeader) {
      expect(o["x-idempotent"]).toBe(true);
      expect(o.responses["409"]).toBeDefined();
    }
  });
});
