import { BrandSettings } from "../core/schemas/brand.js";
import type { ApiClient } from "./api-client.js";

export type BrandUpdate = Partial<{
  brandName: string | null;
  brandDescription: string | null;
  brandEmail: string | null;
  websiteUrl: string | null;
  emailLanguage: string | null;
  logoUrl: string | null;
  brandDesignSystem: Record<string, unknown> | null;
}>;

export class BrandApi {
  constructor(private readonly client: ApiClient) {}

  get() {
    return this.client.request("GET", "/api/v1/settings/brand", BrandSettings);
  }

  update(body: BrandUpdate) {
    return this.client.request("PATCH", "/api/v1/settings/brand", BrandSettings, { body });
  }
}
