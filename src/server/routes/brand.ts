import { BrandSettings, UpdateBrandBody } from "../../core/schemas/brand.js";
import { defineRoute } from "../route.js";

export const brandRoutes = [
  defineRoute({
    method: "GET",
    path: "/api/v1/settings/brand",
    operationId: "getBrandSettings",
    summary: "The workspace's brand settings and the generated style guide",
    tag: "brand",
    addition: true,
    auth: "user",
    response: BrandSettings,
    handler: ({ services, principal }) => services.brand.get(principal),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/settings/brand",
    operationId: "updateBrandSettings",
    summary: "Update any of the brand fields (null clears one); answers the settings with brandDesignMarkdown",
    tag: "brand",
    endpoint: 14,
    auth: "user",
    body: UpdateBrandBody,
    response: BrandSettings,
    handler: ({ services, principal, body }) => services.brand.update(principal, body),
  }),
];
