import { badRequest } from "../../core/errors.js";
import type { BrandSettings, UpdateBrandBody } from "../../core/schemas/brand.js";
import { BrandSettingsRepo, type BrandColumns, type BrandSettingsRow } from "../../store/brand-settings.js";
import type { Principal } from "../access/auth.js";
import { renderBrandMarkdown } from "./brand-markdown.js";
import type { ServiceDeps } from "../deps.js";

const FIELD_TO_COLUMN = {
  brandName: "brand_name",
  brandDescription: "brand_description",
  brandEmail: "brand_email",
  websiteUrl: "website_url",
  emailLanguage: "email_language",
  logoUrl: "logo_url",
  postalAddress: "postal_address",
  timeZone: "time_zone",
} as const satisfies Record<string, keyof BrandColumns>;

export function toBrandSettings(row: BrandSettingsRow | undefined): BrandSettings {
  const settings = {
    brandName: row?.brand_name ?? null,
    brandDescription: row?.brand_description ?? null,
    brandEmail: row?.brand_email ?? null,
    websiteUrl: row?.website_url ?? null,
    emailLanguage: row?.email_language ?? null,
    logoUrl: row?.logo_url ?? null,
    brandDesignSystem: row ? (JSON.parse(row.design_system) as Record<string, unknown>) : {},
  };
  return { ...settings, brandDesignMarkdown: renderBrandMarkdown(settings), postalAddress: row?.postal_address || null, timeZone: row?.time_zone ?? "UTC" };
}

/** Brand settings of the active workspace (endpoint 14 and `GET /api/v1/settings/brand`). */
export class BrandService {
  private readonly repo: BrandSettingsRepo;

  constructor(private readonly deps: Pick<ServiceDeps, "db" | "clock">) {
    this.repo = new BrandSettingsRepo(deps.db);
  }

  get(principal: Principal): BrandSettings {
    return this.forTeam(principal.teamId);
  }

  /** A workspace's settings, for rendering its messages. */
  forTeam(teamId: string): BrandSettings {
    return toBrandSettings(this.repo.forTeam(teamId));
  }

  /** Only the fields sent change; `null` clears one (the design system back to `{}`). */
  update(principal: Principal, body: UpdateBrandBody): BrandSettings {
    const changes: Partial<Record<keyof BrandColumns, string | null>> = {};
    for (const [field, column] of Object.entries(FIELD_TO_COLUMN) as Array<[keyof typeof FIELD_TO_COLUMN, keyof BrandColumns]>) {
      const value = body[field];
      if (value !== undefined) changes[column] = value;
    }
    if (body.brandDesignSystem !== undefined) changes.design_system = JSON.stringify(body.brandDesignSystem ?? {});
    if (Object.keys(changes).length === 0) {
      throw badRequest(
        "nothing to update: send at least one of brandName, brandDescription, brandEmail, websiteUrl, emailLanguage, logoUrl, brandDesignSystem, postalAddress, timeZone",
      );
    }
    const now = this.deps.clock.now().toISOString();
    const row = this.deps.db.transaction(() => this.repo.upsert(principal.teamId, changes, now)).immediate();
    return toBrandSettings(row);
  }
}
