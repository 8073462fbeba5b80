import { afterEach } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import type { ServerConfig } from "../../src/services/config.js";
import type { DkimKeyGenerator } from "../../src/services/sending/dkim-keys.js";
import { openInstance, type Instance } from "../../src/services/instance.js";
import type { Role } from "../../src/core/schemas/team.js";
import { tempDir } from "./data-dir.js";
import { testDkimKeys } from "./dkim-keys.js";

const open: Instance[] = [];

afterEach(() => {
  for (const instance of open.splice(0)) instance.close();
});

export interface TestInstance extends Instance {
  clock: ManualClock;
  /** The first user's token (owner of `team`). */
  token: string;
  userId: string;
  teamId: string;
  /** Add a user with a role in the first workspace (or a new one); returns their token. */
  addUser(options: { email: string; name?: string; role?: Role; teamSlug?: string }): { token: string; userId: string };
}

/**
 * A data directory in a temp folder with an owner "Ada" of workspace "Acme" (plan
 * self-hosted unless given), a manual clock and test-friendly settings (no rate limit,
 * no enrichment unless asked, no DNS check of found emails unless asked (it would ask
 * the system's resolvers about fixture domains), fast DKIM keys).
 */
export function createTestInstance(
  options: { plan?: string; config?: Partial<ServerConfig>; env?: NodeJS.ProcessEnv; clock?: ManualClock; dataDir?: string; dkimKeys?: DkimKeyGenerator } = {},
): TestInstance {
  const clock = options.clock ?? new ManualClock("2026-11-22T10:00:00.000Z");
  const dataDir = options.dataDir ?? tempDir();
  const instance = openInstance({
    dataDir,
    clock,
    env: { ...options.env },
    config: { rateLimitPerMinute: 0, enrich: false, emailDnsCheck: false, ...options.config },
    dkimKeys: options.dkimKeys ?? testDkimKeys,
  });
  open.push(instance);
  const identity = instance.services.identity;
  const boot = identity.bootstrap({ name: "Ada", email: "ada@example.com", team: "Acme", plan: options.plan ?? "self-hosted" });
  return {
    ...instance,
    clock,
    token: boot.token,
    userId: boot.user.id,
    teamId: boot.team.id,
    addUser({ email, name, role = "member", teamSlug = boot.team.slug }) {
      const user = identity.users.byEmail(email) ?? identity.createUser({ name: name ?? email.split("@")[0]!, email });
      identity.addMember({ teamSlug, email, role });
      return { token: identity.issuePersonalToken(user.id, "test").raw, userId: user.id };
    },
  };
}
