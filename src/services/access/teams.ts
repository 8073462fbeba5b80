import { notFound, unauthorized } from "../../core/errors.js";
import type { TeamsResponse, Workspace } from "../../core/schemas/team.js";
import type { User } from "../../core/schemas/user.js";
import { TeamsRepo } from "../../store/teams.js";
import { UsersRepo } from "../../store/users.js";
import type { Principal } from "./auth.js";
import { toUser, toWorkspace } from "./identity.js";
import { isManager } from "./roles.js";
import type { ServiceDeps } from "../deps.js";

/** What a signed-in user sees of themselves and their workspaces (endpoints 16, 17 and switch). */
export class TeamService {
  private readonly teams: TeamsRepo;
  private readonly users: UsersRepo;

  constructor(deps: Pick<ServiceDeps, "db">) {
    this.teams = new TeamsRepo(deps.db);
    this.users = new UsersRepo(deps.db);
  }

  private userId(principal: Principal): string {
    if (!principal.userId) throw unauthorized("this endpoint needs a personal access token, not a team API key");
    return principal.userId;
  }

  me(principal: Principal): User {
    const user = this.users.byId(this.userId(principal));
    if (!user) throw unauthorized("invalid, expired or revoked token");
    return toUser(user);
  }

  list(principal: Principal): TeamsResponse {
    const rows = this.teams.forUser(this.userId(principal));
    const teams = rows.map((row) => toWorkspace(row, row.role));
    const activeTeam = teams.find((t) => t.id === principal.teamId);
    if (!activeTeam) throw unauthorized("no active workspace");
    return {
      teams,
      activeTeam,
      isAdmin: isManager(activeTeam.role),
      // Workspaces are created by the operator (`outreach admin teams create`); the API has no create route.
      canCreateTeam: false,
    };
  }

  switch(principal: Principal, teamId: string): Workspace {
    const userId = this.userId(principal);
    const team = this.teams.byId(teamId);
    const membership = team ? this.teams.membership(team.id, userId) : undefined;
    // Not a member and unknown look the same: no existence oracle.
    if (!team || !membership) throw notFound(`workspace ${teamId} not found`);
    this.users.setActiveTeam(userId, team.id);
    return toWorkspace(team, membership.role);
  }
}
