import type { RouteBindings } from "../route.js";

export const userRoutes = {
  "user.me": ({ services, principal }) => services.teams.me(principal),
  "userTokens.list": ({ services, principal }) => ({ tokens: services.personalTokens.list(principal) }),
  "userTokens.create": ({ services, principal, body }) => services.personalTokens.create(principal, body),
  "userTokens.revoke": ({ services, principal, params }) => {
    services.personalTokens.revoke(principal, params.id);
    return { success: true as const };
  },
} satisfies Partial<RouteBindings>;
