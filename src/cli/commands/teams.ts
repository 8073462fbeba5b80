import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { printJson, printRows } from "../output.js";
import { attachVerbs, defineVerb, type JsonOption } from "./shared.js";

/** `outreach teams list|switch`: your workspaces. A small group, so its two verbs share this file. */
export function registerTeams(program: Command, ctx: CommandContext): void {
  const teams = program.command("teams").description("list and switch workspaces");
  attachVerbs(teams, ctx, registerTeamsList, registerTeamsSwitch);
}

export type TeamsListOptions = JsonOption;

export function registerTeamsList(teams: Command, ctx: CommandContext): void {
  defineVerb(
    teams,
    { name: "list", description: "list your workspaces; * marks the active one", json: true, examples: ["outreach teams list", "outreach teams list --json"] },
  ).action((options: TeamsListOptions) => runTeamsList(ctx, options));
}

export async function runTeamsList(ctx: CommandContext, options: TeamsListOptions): Promise<void> {
  const result = await (await ctx.client()).call("teams.list");
  if (options.json) return printJson(ctx.io, result);
  printRows(ctx.io, ctx.env, result.teams, [
    { header: "", value: (t) => (t.id === result.activeTeam.id ? "*" : "") },
    { header: "ID", value: (t) => t.id },
    { header: "NAME", value: (t) => t.name },
    { header: "SLUG", value: (t) => t.slug },
    { header: "ROLE", value: (t) => t.role },
  ]);
}

export interface TeamsSwitchOptions {
  /** A workspace id or slug. */
  team: string;
  json?: boolean;
}

export function registerTeamsSwitch(teams: Command, ctx: CommandContext): void {
  defineVerb(teams, { name: "switch", description: "make another workspace the active one", json: true, examples: ["outreach teams switch acme", "outreach teams switch team_3kF9x2…"] }, (command) =>
    command.argument("<team>", "workspace id or slug"),
  ).action((team: string, options: { json?: boolean }) => runTeamsSwitch(ctx, { team, json: options.json }));
}

export async function runTeamsSwitch(ctx: CommandContext, { team, json }: TeamsSwitchOptions): Promise<void> {
  const client = await ctx.client();
  const { teams: mine } = await client.call("teams.list");
  const target = mine.find((t) => t.id === team || t.slug === team);
  if (!target) throw new CliError(`no workspace ${JSON.stringify(team)} among yours (see \`outreach teams list\`)`, EXIT.notFound);
  const result = await client.call("teams.switch", { body: { teamId: target.id } });
  if (json) return printJson(ctx.io, result);
  ctx.info(`Active workspace: ${result.activeTeam.name} (${result.activeTeam.slug}, ${result.activeTeam.role})`);
}
