import { z } from "zod";
import { Timestamp } from "./common.js";

export const Quota = z
  .object({
    plan: z.string(),
    limit: z.number().int().nullable(),
    used: z.number().int(),
    remaining: z.number().int().nullable(),
    resetAt: Timestamp,
  })
  .meta({ id: "Quota" });
export type Quota = z.infer<typeof Quota>;

export const QuotaResponse = z.object({ quota: Quota });
