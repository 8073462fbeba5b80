import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { printJson, printRows } from "../output.js";
import { example, withJson } from "./shared.js";

export function registerTeams(program: Command, ctx: CommandContext): void {
  const teams = program.command("teams").description("list and switch workspaces");

  const list = withJson(teams.command("list").description("list your workspaces; * marks the active one")).action(
    async (options: { json?: boolean }) => {
      const result = await (await ctx.client()).call("teams.list");
      if (options.json) return printJson(ctx.io, result);
      printRows(ctx.io, ctx.env, result.teams, [
        { header: "", value: (t) => (t.id === result.activeTeam.id ? "*" : "") },
        { header: "ID", value: (t) => t.id },
        { header: "NAME", value: (t) => t.name },
        { header: "SLUG", value: (t) => t.slug },
        { header: "ROLE", value: (t) => t.role },
      ]);
    },
  );
  example(list, "outreach teams list", "outreach teams list --json");

  const switchCmd = withJson(
    teams.command("switch").description("make another workspace the active one").argument("<team>", "workspace id or slug"),
  ).action(async (team: string, options: { json?: boolean }) => {
    const client = await ctx.client();
    const { teams: mine } = await client.call("teams.list");
    const target = mine.find((t) => t.id === team || t.slug === team);
    if (!target) throw new CliError(`no workspace ${JSON.stringify(team)} among yours (see \`outreach teams list\`)`, EXIT.notFound);
    const result = await client.call("teams.switch", { body: { teamId: target.id } });
    if (options.json) return printJson(ctx.io, result);
    ctx.info(`Active workspace: ${result.activeTeam.name} (${result.activeTeam.slug}, ${result.activeTeam.role})`);
  });
  example(switchCmd, "outreach teams switch acme", "outreach teams switch team_3kF9x2…");
}
