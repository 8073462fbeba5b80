import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { printJson, printRecord } from "../output.js";
import { defineVerb, type JsonOption } from "./shared.js";

/** `outreach whoami`: the signed-in user and the active workspace. */
export type WhoamiOptions = JsonOption;

export function registerWhoami(program: Command, ctx: CommandContext): void {
  defineVerb(
    program,
    { name: "whoami", description: "show the signed-in user and the active workspace", json: true, examples: ["outreach whoami", "outreach whoami --json | jq -r .user.email"] },
  ).action((options: WhoamiOptions) => runWhoami(ctx, options));
}

export async function runWhoami(ctx: CommandContext, options: WhoamiOptions): Promise<void> {
  const client = await ctx.client();
  const [user, teams] = await Promise.all([client.call("user.me"), client.call("teams.list")]);
  if (options.json) return printJson(ctx.io, { user, activeTeam: teams.activeTeam });
  printRecord(ctx.io, [
    ["user", `${user.name} <${user.email}>`],
    ["id", user.id],
    ["workspace", `${teams.activeTeam.name} (${teams.activeTeam.slug})`],
    ["role", teams.activeTeam.role],
  ]);
}
