import type { RouteSpec } from "../route.js";
import { leadRoutes } from "./leads.js";
import { teamRoutes } from "./teams.js";
import { userRoutes } from "./user.js";

/** Every API route. Each resource's file exports its list; add new ones here. */
export const allRoutes: readonly RouteSpec[] = [...userRoutes, ...teamRoutes, ...leadRoutes];
