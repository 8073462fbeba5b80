import type { RouteSpec } from "../route.js";
import { contactRoutes } from "./contacts.js";
import { teamRoutes } from "./teams.js";
import { userRoutes } from "./user.js";

/** Every API route. Each resource's file exports its list; add new ones here. */
export const allRoutes: readonly RouteSpec[] = [...userRoutes, ...teamRoutes, ...contactRoutes];
