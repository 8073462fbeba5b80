import { z } from "zod";

export const Role = z.enum(["owner", "admin", "member"]);
export type Role = z.infer<typeof Role>;

export const Workspace = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    role: Role,
    isBetaTester: z.boolean(),
  })
  .meta({ id: "Workspace" });
export type Workspace = z.infer<typeof Workspace>;

export const TeamsResponse = z
  .object({
    teams: z.array(Workspace),
    activeTeam: Workspace,
    isAdmin: z.boolean(),
    canCreateTeam: z.boolean(),
  })
  .meta({ id: "TeamsResponse" });
export type TeamsResponse = z.infer<typeof TeamsResponse>;

export const SwitchTeamBody = z.strictObject({ teamId: z.string().min(1).max(64) });
export const SwitchTeamResponse = z.object({ activeTeam: Workspace });
