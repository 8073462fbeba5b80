import type { RouteBindings } from "../route.js";

export const teamApiKeyRoutes = {
  "teamApiKeys.list": ({ services, principal }) => ({ apiKeys: services.teamApiKeys.list(principal) }),
  "teamApiKeys.create": ({ services, principal, body }) => services.teamApiKeys.create(principal, body),
  "teamApiKeys.rotate": ({ services, principal, params }) => services.teamApiKeys.rotate(principal, params.id),
  "teamApiKeys.revoke": ({ services, principal, params }) => ({ apiKey: services.teamApiKeys.revoke(principal, params.id) }),
} satisfies Partial<RouteBindings>;
