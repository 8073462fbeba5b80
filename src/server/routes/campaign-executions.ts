import type { RouteBindings } from "../route.js";

/** Sequences' additions to campaigns (src/core/contract/campaign-sequences.ts). */
export const campaignExecutionRoutes = {
  "campaigns.cancel": ({ services, principal, params }) => services.campaignExecutions.cancel(principal, params.id),
  "campaigns.resolveExecution": ({ services, principal, params, body }) => ({
    execution: services.campaignExecutions.resolve(principal, params.id, params.executionId, body),
  }),
} satisfies Partial<RouteBindings>;
