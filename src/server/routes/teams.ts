import type { RouteBindings } from "../route.js";

export const teamRoutes = {
  "teams.list": ({ services, principal }) => services.teams.list(principal),
  "teams.switch": ({ services, principal, body }) => ({ activeTeam: services.teams.switch(principal, body.teamId) }),
} satisfies Partial<RouteBindings>;
