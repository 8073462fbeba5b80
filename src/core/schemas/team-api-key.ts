import { z } from "zod";
import { Timestamp } from "./common.js";
import { DateTimeInput } from "./campaign.js";

/** Scopes a team API key can carry. Unknown ones are a 400, never silently ignored. */
export const KEY_SCOPES = ["campaigns:trigger"] as const;
export const KeyScope = z.enum(KEY_SCOPES);
export type KeyScope = z.infer<typeof KeyScope>;

export const TeamApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string(),
    scopes: z.array(z.string()),
    lastUsedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "TeamApiKey" });
export type TeamApiKey = z.infer<typeof TeamApiKey>;

export const CreateKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(KeyScope)
    .min(1)
    .max(KEY_SCOPES.length)
    .refine((s) => new Set(s).size === s.length, { message: "must not repeat a scope" }),
  expiresAt: DateTimeInput.nullable().optional(),
});
export type CreateKeyBody = z.infer<typeof CreateKeyBody>;

/** Endpoint 15 and the create addition: the raw key is in `key`, returned this once only. */
export const IssuedKeyResponse = z.object({ apiKey: TeamApiKey, key: z.string() }).meta({ id: "IssuedTeamApiKey" });
export const KeyResponse = z.object({ apiKey: TeamApiKey });
export const KeyList = z.object({ apiKeys: z.array(TeamApiKey) }).meta({ id: "TeamApiKeyList" });
