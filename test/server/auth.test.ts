import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { databasePath } from "../../src/services/instance.js";
import { issueToken } from "../../src/core/tokens.js";
import { createTestInstance } from "../helpers/instance.js";
import { transports } from "../helpers/two-ways.js";

describe.each(transports)("authentication (%s)", (_name, connect) => {
  async function setup() {
    const instance = createTestInstance();
    return { instance, request: await connect(instance.services) };
  }

  it("no token is a 401 with an error body", async () => {
    const { request } = await setup();
    const res = await request("/api/v1/user/me");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/missing bearer token/) });
  });

  it("a malformed Authorization header is a 401", async () => {
    const { request, instance } = await setup();
    const res = await request("/api/v1/user/me", { headers: { authorization: `Token ${instance.token}` } });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatch(/malformed Authorization header/);
  });

  it("a token with a bad checksum is a 401 without touching the database", async () => {
    const { request, instance } = await setup();
    const raw = instance.token;
    const bad = raw.slice(0, -1) + (raw.endsWith("A") ? "B" : "A");
    // With the database closed, any lookup would be a 500: a 401 proves none happened.
    instance.close();
    const res = await request("/api/v1/user/me", { token: bad });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "malformed token" });
  });

  it("a well-formed but unknown token is a 401", async () => {
    const { request } = await setup();
    const res = await request("/api/v1/teams", { token: issueToken("pat").raw });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatch(/invalid, expired or revoked/);
  });

  it("a revoked token is a 401 from the moment it is revoked", async () => {
    const { request, instance } = await setup();
    expect((await request("/api/v1/user/me", { token: instance.token })).status).toBe(200);
    const tokenRow = instance.services.identity.tokens.forUser(instance.userId)[0]!;
    instance.services.identity.tokens.revoke(tokenRow.id, instance.clock.now().toISOString());
    const res = await request("/api/v1/user/me", { token: instance.token });
    expect(res.status).toBe(401);
  });

  it("an expired token is a 401", async () => {
    const { request, instance } = await setup();
    instance.services.deps.db.prepare("UPDATE personal_tokens SET expires_at = ?").run("2026-11-22T09:00:00.000Z");
    expect((await request("/api/v1/user/me", { token: instance.token })).status).toBe(401);
  });

  it("a user without any workspace gets 401 'no active workspace'", async () => {
    const { request, instance } = await setup();
    const identity = instance.services.identity;
    const loner = identity.createUser({ name: "Lone", email: "lone@example.com" });
    const token = identity.issuePersonalToken(loner.id).raw;
    const res = await request("/api/v1/teams", { token });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "no active workspace" });
  });

  it("records lastUsedAt without writing on every request", async () => {
    const { request, instance } = await setup();
    const tokens = instance.services.identity.tokens;
    await request("/api/v1/user/me", { token: instance.token });
    const first = tokens.forUser(instance.userId)[0]!.last_used_at;
    expect(first).toBe("2026-11-22T10:00:00.000Z");
    instance.clock.advance(30_000);
    await request("/api/v1/user/me", { token: instance.token });
    expect(tokens.forUser(instance.userId)[0]!.last_used_at).toBe(first);
    instance.clock.advance(31_000);
    await request("/api/v1/user/me", { token: instance.token });
    expect(tokens.forUser(instance.userId)[0]!.last_used_at).toBe("2026-11-22T10:01:01.000Z");
  });

  it("an authenticated read takes no write lock once lastUsedAt is recent (another connection may hold it)", async () => {
    const { request, instance } = await setup();
    await request("/api/v1/user/me", { token: instance.token });
    instance.clock.advance(30_000);
    // Another process writing (an import, the CLI): it holds the write lock meanwhile.
    const other = new Database(databasePath(instance.dataDir));
    instance.services.deps.db.pragma("busy_timeout = 50");
    try {
      other.exec("BEGIN IMMEDIATE");
      const res = await request("/api/v1/user/me", { token: instance.token });
      expect(res.status).toBe(200);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
  });

  it("the raw token is nowhere in the database", async () => {
    const { instance } = await setup();
    const rows = instance.services.deps.db.prepare("SELECT * FROM personal_tokens").all();
    expect(JSON.stringify(rows)).not.toContain(instance.token);
  });
});
