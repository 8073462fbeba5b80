import { describe, expect, it } from "vitest";
import { parseToken } from "../../src/core/tokens.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { otherWorkspace } from "../helpers/workspaces.js";

async function setup() {
  const instance = createTestInstance();
  const server = await startTestServer(instance.services);
  return { instance, server };
}

type Issued = { apiKey: { id: string; keyPrefix: string; lastUsedAt: string | null; revokedAt: string | null }; key: string };

async function createKey(server: TestServer, token: string, body: Record<string, unknown> = {}): Promise<Issued> {
  const res = await server.request("/api/v1/settings/team-api-keys", {
    method: "POST",
    token,
    json: { name: "Zapier", scopes: ["campaigns:trigger"], ...body },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Issued;
}

const rotate = (server: TestServer, token: string, id: string) => server.request(`/api/v1/settings/team-api-keys/${id}`, { method: "POST", token });
const revoke = (server: TestServer, token: string, id: string) => server.request(`/api/v1/settings/team-api-keys/${id}`, { method: "DELETE", token });

/** A request only a valid team API key gets past authentication on (404: the campaign is unknown). */
async function keyStatus(server: TestServer, key: string): Promise<number> {
  const res = await server.request("/api/v1/campaigns/cmp_unknown000000000/trigger", { method: "POST", token: key, json: { contactId: "ct_x" } });
  return res.status;
}

describe("team API keys over a real socket", () => {
  it("creates a key and returns the raw value once, with every 2.12 field", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token, { expiresAt: "2027-01-01T00:00:00Z" });
    expect(parseToken(issued.key)).toBe("key");
    expect(issued.apiKey).toEqual({
      id: expect.stringMatching(/^key_/),
      name: "Zapier",
      keyPrefix: issued.key.slice(0, 12),
      scopes: ["campaigns:trigger"],
      lastUsedAt: null,
      expiresAt: "2027-01-01T00:00:00.000Z",
      revokedAt: null,
      createdAt: "2026-11-22T10:00:00.000Z",
    });
    const listRes = await server.request("/api/v1/settings/team-api-keys", { token: instance.token });
    const text = await listRes.text();
    expect(JSON.parse(text)).toEqual({ apiKeys: [issued.apiKey] });
    expect(text).not.toContain(issued.key);
    const stored = instance.services.deps.db.prepare("SELECT * FROM team_api_keys").all();
    expect(JSON.stringify(stored)).not.toContain(issued.key);
  });

  it("refuses unknown scopes, no scopes, and a past expiry with 400 naming the field", async () => {
    const { server, instance } = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: "k", scopes: ["campaigns:delete"] }, 'scopes[0] must be one of "campaigns:trigger"'],
      [{ name: "k", scopes: [] }, "scopes must have at least 1 item"],
      [{ name: "k", scopes: ["campaigns:trigger"], expiresAt: "2026-11-22T09:00:00Z" }, "expiresAt must be in the future"],
      [{ scopes: ["campaigns:trigger"] }, "name is required"],
    ];
    for (const [json, message] of cases) {
      const res = await server.request("/api/v1/settings/team-api-keys", { method: "POST", token: instance.token, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((await res.json()).error).toContain(message);
    }
  });

  it("rotates: the previous key fails with 401 at once, the new one works, the id stays", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token);
    expect(await keyStatus(server, issued.key)).toBe(404);
    const res = await rotate(server, instance.token, issued.apiKey.id);
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as Issued;
    expect(rotated.apiKey.id).toBe(issued.apiKey.id);
    expect(rotated.key).not.toBe(issued.key);
    expect(rotated.apiKey.keyPrefix).toBe(rotated.key.slice(0, 12));
    const old = await server.request("/api/v1/campaigns/cmp_unknown000000000/trigger", { method: "POST", token: issued.key, json: { contactId: "ct_x" } });
    expect(old.status).toBe(401);
    expect(await keyStatus(server, rotated.key)).toBe(404);
    const list = await (await server.request("/api/v1/settings/team-api-keys", { token: instance.token })).text();
    expect(list).not.toContain(rotated.key);
  });

  it("answers two concurrent rotations of one key with exactly one 200 and one 409, and the key handed out works", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token);
    const answers = await Promise.all([0, 1, 2, 3].map(() => rotate(server, instance.token, issued.apiKey.id)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = (await answers.find((r) => r.status === 200)!.json()) as Issued;
    expect(await keyStatus(server, winner.key)).toBe(404);
    expect(await keyStatus(server, issued.key)).toBe(401);
    const loser = answers.find((r) => r.status === 409)!;
    expect(loser.headers.get("retry-after")).toBe("10");
    expect((await loser.json()).error).toBe(
      `team API key ${issued.apiKey.id} was rotated at 2026-11-22T10:00:00.000Z, less than 10 s ago (by a concurrent request?): ` +
        "the key that rotation returned is the live one; rotate again from 2026-11-22T10:00:10.000Z if you still need to",
    );
    // Once the moment has passed, rotating again is an ordinary rotation.
    instance.clock.advance(10_000);
    const later = await rotate(server, instance.token, issued.apiKey.id);
    expect(later.status).toBe(200);
    expect(await keyStatus(server, ((await later.json()) as Issued).key)).toBe(404);
    expect(await keyStatus(server, winner.key)).toBe(401);
  });

  it("refuses to rotate a revoked or an expired key with 409, and an unknown or foreign one with 404", async () => {
    const { server, instance } = await setup();
    const revoked = await createKey(server, instance.token);
    expect((await revoke(server, instance.token, revoked.apiKey.id)).status).toBe(200);
    const r1 = await rotate(server, instance.token, revoked.apiKey.id);
    expect(r1.status).toBe(409);
    expect((await r1.json()).error).toContain("was revoked at 2026-11-22T10:00:00.000Z and cannot be rotated");

    const expiring = await createKey(server, instance.token, { expiresAt: "2026-11-22T11:00:00Z" });
    instance.clock.set("2026-11-22T11:00:00.000Z");
    expect(await keyStatus(server, expiring.key)).toBe(401);
    const r2 = await rotate(server, instance.token, expiring.apiKey.id);
    expect(r2.status).toBe(409);
    expect((await r2.json()).error).toContain("expired at 2026-11-22T11:00:00.000Z and cannot be rotated");

    expect((await rotate(server, instance.token, "key_unknown000000000")).status).toBe(404);
    const other = otherWorkspace(instance);
    const foreign = await createKey(server, other.token);
    expect((await rotate(server, instance.token, foreign.apiKey.id)).status).toBe(404);
    expect((await revoke(server, instance.token, foreign.apiKey.id)).status).toBe(404);
    expect(await keyStatus(server, foreign.key)).toBe(404);
  });

  it("revokes: the key fails with 401 at once; revoking again answers the key unchanged", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token);
    const first = await (await revoke(server, instance.token, issued.apiKey.id)).json();
    expect(first.apiKey.revokedAt).toBe("2026-11-22T10:00:00.000Z");
    expect(await keyStatus(server, issued.key)).toBe(401);
    instance.clock.advance(5000);
    const second = await revoke(server, instance.token, issued.apiKey.id);
    expect(second.status).toBe(200);
    expect((await second.json()).apiKey.revokedAt).toBe("2026-11-22T10:00:00.000Z");
  });

  it("lets members list keys but not create, rotate or revoke them (403)", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token);
    const member = instance.addUser({ email: "mo@example.com", role: "member" });
    const admin = instance.addUser({ email: "al@example.com", role: "admin" });
    expect((await server.request("/api/v1/settings/team-api-keys", { token: member.token })).status).toBe(200);
    const create = await server.request("/api/v1/settings/team-api-keys", { method: "POST", token: member.token, json: { name: "x", scopes: ["campaigns:trigger"] } });
    expect(create.status).toBe(403);
    expect((await create.json()).error).toBe("only an owner or admin of the workspace can create team API keys (your role: member)");
    expect((await rotate(server, member.token, issued.apiKey.id)).status).toBe(403);
    expect((await revoke(server, member.token, issued.apiKey.id)).status).toBe(403);
    expect(await keyStatus(server, issued.key)).toBe(404);
    expect((await rotate(server, admin.token, issued.apiKey.id)).status).toBe(200);
  });

  it("refuses a team API key on routes for people with 403", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token);
    for (const [method, path] of [["GET", "/api/v1/settings/team-api-keys"], ["POST", `/api/v1/settings/team-api-keys/${issued.apiKey.id}`], ["GET", "/api/v1/campaigns"]]) {
      const res = await server.request(path!, { method, token: issued.key });
      expect(res.status, path).toBe(403);
    }
  });

  it("records lastUsedAt at most once a minute, not on every request", async () => {
    const { server, instance } = await setup();
    const issued = await createKey(server, instance.token);
    const lastUsed = async () =>
      ((await (await server.request("/api/v1/settings/team-api-keys", { token: instance.token })).json()) as { apiKeys: Issued["apiKey"][] }).apiKeys[0]!
        .lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await keyStatus(server, issued.key);
    expect(await lastUsed()).toBe("2026-11-22T10:00:00.000Z");
    instance.clock.advance(30_000);
    await keyStatus(server, issued.key);
    expect(await lastUsed()).toBe("2026-11-22T10:00:00.000Z");
    instance.clock.advance(31_000);
    await keyStatus(server, issued.key);
    expect(await lastUsed()).toBe("2026-11-22T10:01:01.000Z");
  });
});
