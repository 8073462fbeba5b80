import { z } from "zod";

export const User = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string().meta({ format: "email" }),
  })
  .meta({ id: "User" });
export type User = z.infer<typeof User>;
