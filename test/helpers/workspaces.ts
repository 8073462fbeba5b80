import type { TestInstance } from "./instance.js";

/** A second workspace "Globex" with its own owner Bob, in the same data directory. */
export function otherWorkspace(instance: TestInstance): { token: string; teamId: string; userId: string } {
  const identity = instance.services.identity;
  const bob = identity.createUser({ name: "Bob", email: "bob@globex.example" });
  const team = identity.createTeam({ name: "Globex", ownerId: bob.id, plan: "self-hosted" });
  return { token: identity.issuePersonalToken(bob.id, "test").raw, teamId: team.id, userId: bob.id };
}
