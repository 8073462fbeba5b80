import type { RouteBindings } from "../route.js";

export const brandRoutes = {
  "brand.get": ({ services, principal }) => services.brand.get(principal),
  "brand.update": ({ services, principal, body }) => services.brand.update(principal, body),
} satisfies Partial<RouteBindings>;
