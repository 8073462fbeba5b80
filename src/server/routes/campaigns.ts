import type { RouteBindings } from "../route.js";

export const campaignRoutes = {
  "campaigns.list": ({ services, principal, query }) => services.campaigns.list(principal, query),
  "campaigns.create": ({ services, principal, body }) => ({ campaign: services.campaigns.create(principal, body) }),
  "campaigns.get": ({ services, principal, params }) => ({ campaign: services.campaigns.get(principal, params.id) }),
  "campaigns.changeLifecycle": ({ services, principal, params, body }) => ({ campaign: services.campaigns.changeLifecycle(principal, params.id, body) }),
  "campaigns.trigger": ({ services, principal, params, body }) => services.campaigns.trigger(principal, params.id, body.contactId),
  "campaigns.executions": ({ services, principal, params, query }) => services.campaigns.executions(principal, params.id, query),
} satisfies Partial<RouteBindings>;
