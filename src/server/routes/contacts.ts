import type { RouteBindings } from "../route.js";

export const contactRoutes = {
  "contacts.add": ({ services, principal, body }) => ({ success: true, contact: services.contacts.add(principal.teamId, body) }),
  "contacts.import": ({ services, principal, body }) => services.contacts.addMany(principal.teamId, body.contacts, body.tags ?? []),
  "contacts.list": ({ services, principal, query }) => services.contacts.list(principal.teamId, query),
  "contacts.get": ({ services, principal, params }) => ({ contact: services.contacts.get(principal.teamId, params.id) }),
  "contacts.update": ({ services, principal, params, body }) => ({ contact: services.contacts.update(principal.teamId, params.id, body) }),
  "contacts.delete": ({ services, principal, params }) => {
    services.contacts.delete(principal.teamId, params.id);
    return { success: true };
  },
} satisfies Partial<RouteBindings>;
