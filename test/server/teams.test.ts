import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { transports } from "../helpers/two-ways.js";

describe.each(transports)("workspaces and the current user (%s)", (_name, connect) => {
  it("lists every workspace of the user with their role and marks the active one", async () => {
    const instance = createTestInstance();
    const identity = instance.services.identity;
    const other = identity.createTeam({ name: "Beta Labs", ownerId: instance.userId, plan: "free" });
    const bob = instance.addUser({ email: "bob@example.com", role: "admin" });
    identity.addMember({ teamSlug: other.slug, email: "bob@example.com", role: "member" });
    const request = await connect(instance.services);

    const ada = await (await request("/api/v1/teams", { token: instance.token })).json();
    expect(ada.teams.map((t: { slug: string; role: string }) => [t.slug, t.role])).toEqual([
      ["acme", "owner"],
      ["beta-labs", "owner"],
    ]);
    expect(ada.activeTeam.slug).toBe("acme");

    const bobs = await (await request("/api/v1/teams", { token: bob.token })).json();
    expect(bobs.activeTeam).toMatchObject({ slug: "acme", role: "admin" });
    expect(bobs.isAdmin).toBe(true);
    expect(bobs.canCreateTeam).toBe(false);
  });

  it("switches the active workspace on the server, for every later request", async () => {
    const instance = createTestInstance();
    const beta = instance.services.identity.createTeam({ name: "Beta", ownerId: instance.userId, plan: "free" });
    const request = await connect(instance.services);
    const res = await request("/api/v1/teams/switch", { method: "POST", token: instance.token, json: { teamId: beta.id } });
    expect(res.status).toBe(200);
    expect((await res.json()).activeTeam).toMatchObject({ id: beta.id, role: "owner" });
    const after = await (await request("/api/v1/teams", { token: instance.token })).json();
    expect(after.activeTeam.id).toBe(beta.id);
  });

  it("switching to a workspace the user is not a member of is a 404, like an unknown one", async () => {
    const instance = createTestInstance();
    const carol = instance.services.identity.createUser({ name: "Carol", email: "carol@example.com" });
    const foreign = instance.services.identity.createTeam({ name: "Foreign", ownerId: carol.id, plan: "free" });
    const request = await connect(instance.services);
    for (const teamId of [foreign.id, "team_doesnotexist00"]) {
      const res = await request("/api/v1/teams/switch", { method: "POST", token: instance.token, json: { teamId } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: `workspace ${teamId} not found` });
    }
  });

  it("a member who loses their active workspace falls back to another one", async () => {
    const instance = createTestInstance();
    const beta = instance.services.identity.createTeam({ name: "Beta", ownerId: instance.userId, plan: "free" });
    instance.services.deps.db.prepare("DELETE FROM memberships WHERE team_id = ?").run(instance.teamId);
    const request = await connect(instance.services);
    const body = await (await request("/api/v1/teams", { token: instance.token })).json();
    expect(body.activeTeam.id).toBe(beta.id);
  });
});
