import type { z } from "zod";
import { BrandSettings, UpdateBrandBody } from "../core/schemas/brand.js";
import type { ApiClient } from "./api-client.js";

/** Endpoint 14's body, as the server's schema accepts it (null clears a field). */
export type BrandUpdate = z.input<typeof UpdateBrandBody>;

export class BrandApi {
  constructor(private readonly client: ApiClient) {}

  get() {
    return this.client.request("GET", "/api/v1/settings/brand", BrandSettings);
  }

  update(body: BrandUpdate) {
    return this.client.request("PATCH", "/api/v1/settings/brand", BrandSettings, { body });
  }
}
