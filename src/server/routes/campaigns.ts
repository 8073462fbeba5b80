import type { RouteBindings } from "../route.js";

export const campaignRoutes = {
  "campaigns.list": ({ services, principal, query }) => services.campaigns.list(principal, query),
  "campaigns.create": async ({ services, principal, body }) => ({ campaign: await services.campaigns.create(principal, body) }),
  "campaigns.get": ({ services, principal, params }) => services.campaigns.detail(principal, params.id),
  "campaigns.update": async ({ services, principal, params, body }) => ({ campaign: await services.campaigns.update(principal, params.id, body) }),
  "campaigns.launch": ({ services, principal, params, body }) => services.campaigns.launch(principal, params.id, body),
  "campaigns.preview": ({ services, principal, params, query }) => services.campaigns.preview(principal, params.id, query.contactId, query.step),
  "campaigns.changeLifecycle": ({ services, principal, params, body }) => ({ campaign: services.campaigns.changeLifecycle(principal, params.id, body) }),
  "campaigns.trigger": ({ services, principal, params, body }) => services.campaigns.trigger(principal, params.id, body.contactId),
  "campaigns.executions": ({ services, principal, params, query }) => services.campaigns.executions(principal, params.id, query),
} satisfies Partial<RouteBindings>;
