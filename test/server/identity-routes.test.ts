import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

describe("identity routes over a real socket", () => {
  it("GET /api/v1/user/me returns the token's owner", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const res = await server.request("/api/v1/user/me", { token: instance.token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: instance.userId, name: "Ada", email: "ada@example.com" });
  });

  it("GET /api/v1/teams returns the active workspace with the caller's role", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const body = await (await server.request("/api/v1/teams", { token: instance.token })).json();
    expect(body.activeTeam).toMatchObject({ id: instance.teamId, name: "Acme", slug: "acme", role: "owner", isBetaTester: false });
    expect(body.teams).toHaveLength(1);
    expect(body.isAdmin).toBe(true);
  });
});
