import { SwitchTeamBody, SwitchTeamResponse, TeamsResponse } from "../schemas/team.js";
import { defineOperations } from "./operation.js";

export const teamOperations = defineOperations({
  "teams.list": {
    method: "GET",
    path: "/api/v1/teams",
    operationId: "listTeams",
    summary: "The caller's workspaces and the active one",
    tag: "teams",
    endpoint: 16,
    auth: "user",
    response: TeamsResponse,
  },
  "teams.switch": {
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
  },
});
