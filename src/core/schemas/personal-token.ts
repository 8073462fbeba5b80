import { z } from "zod";
import { DateTimeInput } from "./campaign.js";
import { Timestamp } from "./common.js";

/** A personal access token as listed (never its raw value). `current`: the token this request was made with. */
export const PersonalToken = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().meta({ description: "The first characters of the token, to recognise it (otr_pat_…)" }),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable(),
    current: z.boolean().meta({ description: "Addition: true for the token this request was made with" }),
  })
  .meta({ id: "PersonalToken" });
export type PersonalToken = z.infer<typeof PersonalToken>;

export const PersonalTokenList = z.object({ tokens: z.array(PersonalToken) }).meta({ id: "PersonalTokenList" });

export const CreatePersonalTokenBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    expiresAt: DateTimeInput.nullable().optional(),
  })
  .meta({ id: "CreatePersonalTokenBody" });
export type CreatePersonalTokenBody = z.infer<typeof CreatePersonalTokenBody>;

/** The raw token is in `key`, returned this once only. */
export const IssuedPersonalToken = z.object({ token: PersonalToken, key: z.string() }).meta({ id: "IssuedPersonalToken" });
