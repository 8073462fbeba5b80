import type { RouteSpec } from "../route.js";
import { sendingDomainRoutes } from "./sending-domains.js";
import { brandRoutes } from "./brand.js";
import { campaignRoutes } from "./campaigns.js";
import { teamApiKeyRoutes } from "./team-api-keys.js";
import { enrichmentRetryRoutes } from "./enrichment-retry.js";
import { leadRoutes } from "./leads.js";
import { contactRoutes } from "./contacts.js";
import { teamRoutes } from "./teams.js";
import { userRoutes } from "./user.js";

/** Every API route. Each resource's file exports its list; add new ones here. */
export const allRoutes: readonly RouteSpec[] = [
  ...userRoutes,
  ...teamRoutes,
  ...leadRoutes,
  ...enrichmentRetryRoutes,
  ...contactRoutes,
  ...campaignRoutes,
  ...sendingDomainRoutes,
  ...brandRoutes,
  ...teamApiKeyRoutes,
];
