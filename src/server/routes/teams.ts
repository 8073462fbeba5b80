import { SwitchTeamBody, SwitchTeamResponse, TeamsResponse } from "../../core/schemas/team.js";
import { defineRoute } from "../route.js";

export const teamRoutes = [
  defineRoute({
    method: "GET",
    path: "/api/v1/teams",
    operationId: "listTeams",
    summary: "The caller's workspaces and the active one",
    tag: "teams",
    endpoint: 16,
    auth: "user",
    response: TeamsResponse,
    handler: ({ services, principal }) => services.teams.list(principal),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/teams/switch",
    operationId: "switchTeam",
    summary: "Make another of the caller's workspaces the active one",
    tag: "teams",
    addition: true,
    auth: "user",
    body: SwitchTeamBody,
    response: SwitchTeamResponse,
    errors: [404],
    handler: ({ services, principal, body }) => ({ activeTeam: services.teams.switch(principal, body.teamId) }),
  }),
];
