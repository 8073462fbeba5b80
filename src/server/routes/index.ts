import { bindRoutes, type RouteBindings, type RouteSpec } from "../route.js";
import { aiDraftRoutes } from "./ai-drafts.js";
import { brandRoutes } from "./brand.js";
import { campaignReplyRoutes } from "./campaign-replies.js";
import { campaignRoutes } from "./campaigns.js";
import { campaignExecutionRoutes } from "./campaign-executions.js";
import { contactRoutes } from "./contacts.js";
import { leadRoutes } from "./leads.js";
import { sendingDomainRoutes } from "./sending-domains.js";
import { teamApiKeyRoutes } from "./team-api-keys.js";
import { teamRoutes } from "./teams.js";
import { unsubscribeRoutes } from "./unsubscribe.js";
import { userRoutes } from "./user.js";

/** One handler per operation of the contract (src/core/contract/), each resource's in its own file. */
const bindings: RouteBindings = {
  ...userRoutes,
  ...teamRoutes,
  ...leadRoutes,
  ...contactRoutes,
  ...campaignRoutes,
  ...campaignExecutionRoutes,
  ...campaignReplyRoutes,
  ...aiDraftRoutes,
  ...sendingDomainRoutes,
  ...brandRoutes,
  ...teamApiKeyRoutes,
  ...unsubscribeRoutes,
};

/** Every API route: the contract's operations bound to their handlers. */
export const allRoutes: readonly RouteSpec[] = bindRoutes(bindings);
