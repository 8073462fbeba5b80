import type { RouteBindings } from "../route.js";

export const userRoutes = {
  "user.me": ({ services, principal }) => services.teams.me(principal),
} satisfies Partial<RouteBindings>;
