import { BrandSettings, UpdateBrandBody } from "../schemas/brand.js";
import { defineOperations } from "./operation.js";

export const brandOperations = defineOperations({
  "brand.get": {
    method: "GET",
    path: "/api/v1/settings/brand",
    operationId: "getBrandSettings",
    summary: "The workspace's brand settings and the generated style guide",
    tag: "brand",
    addition: true,
    auth: "user",
    response: BrandSettings,
  },
  "brand.update": {
    method: "PATCH",
    path: "/api/v1/settings/brand",
    operationId: "updateBrandSettings",
    summary: "Update any of the brand fields (null clears one); answers the settings with brandDesignMarkdown",
    tag: "brand",
    endpoint: 14,
    auth: "user",
    body: UpdateBrandBody,
    response: BrandSettings,
  },
});
