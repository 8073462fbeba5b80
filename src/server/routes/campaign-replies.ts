import type { RouteBindings } from "../route.js";

export const campaignReplyRoutes = {
  "campaigns.replies": ({ services, principal, params, query }) => services.replies.list(principal, params.id, query),
} satisfies Partial<RouteBindings>;
