import type { RouteBindings } from "../route.js";

export const sendingDomainRoutes = {
  "sendingDomains.add": ({ services, principal, query, body }) => services.sendingDomains.add(principal, query.teamId, body),
  "sendingDomains.list": ({ services, principal, query }) => services.sendingDomains.list(principal, query.teamId),
  "sendingDomains.verify": ({ services, principal, params }) => services.sendingDomains.verify(principal, params.id),
  "sendingDomains.delete": ({ services, principal, params }) => services.sendingDomains.remove(principal, params.id),
} satisfies Partial<RouteBindings>;
