import type { Command } from "commander";
import { toWorkspace } from "../../../services/access/identity.js";
import type { CommandContext } from "../../context.js";
import { printJson, printRows, timeCell } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";
import { limitFlag } from "../../flags.js";
import { teamSlugFlag } from "./admin-flags.js";

/** `outreach admin teams create`: a workspace owned by an existing user. */
export interface TeamsCreateOptions {
  name: string;
  owner: string;
  plan: string;
  json?: boolean;
}

export function registerTeamsCreate(teams: Command, ctx: CommandContext): void {
  defineVerb(
    teams,
    { name: "create", description: "create a workspace owned by an existing user", json: true, examples: ["outreach admin teams create --name Acme --owner ada@example.com --plan pro"] },
    (command) =>
      command
        .requiredOption("--name <name>", "workspace name")
        .requiredOption("--owner <email>", "email of the owner")
        .option("--plan <plan>", "plan (free, pro, self-hosted)", "self-hosted"),
  ).action((options: TeamsCreateOptions) => runTeamsCreate(ctx, options));
}

export function runTeamsCreate(ctx: CommandContext, options: TeamsCreateOptions): void {
  const identity = ctx.openInstance().services.identity;
  const owner = identity.requireUserByEmail(options.owner);
  const team = identity.createTeam({ name: options.name, ownerId: owner.id, plan: options.plan });
  if (options.json) return printJson(ctx.io, toWorkspace(team, "owner"));
  ctx.info(`Created workspace "${team.name}" (${team.slug}, ${team.id}), plan ${team.plan}, owned by ${owner.email}.`);
  ctx.io.stdout.write(team.id + "\n");
}

/** `outreach admin teams list`: every workspace with its plan and member count. */
export type TeamsListOptions = JsonOption;

export function registerTeamsList(teams: Command, ctx: CommandContext): void {
  defineVerb(teams, { name: "list", description: "list every workspace with its plan and member count", json: true, examples: ["outreach admin teams list"] }).action((options: TeamsListOptions) =>
    runTeamsList(ctx, options),
  );
}

export function runTeamsList(ctx: CommandContext, options: TeamsListOptions): void {
  const rows = ctx.openInstance().services.identity.listTeams();
  if (options.json) return printJson(ctx.io, { teams: rows });
  const now = ctx.clock.now();
  printRows(ctx.io, ctx.env, rows, [
    { header: "SLUG", value: (t) => t.slug },
    { header: "NAME", value: (t) => t.name },
    { header: "PLAN", value: (t) => t.plan },
    { header: "MEMBERS", value: (t) => t.members },
    { header: "CREATED", value: (t) => timeCell(ctx.io, now, t.createdAt) },
    { header: "ID", value: (t) => t.id },
  ]);
}

/** `outreach admin teams rename`: a new name, and the slug follows unless --slug is given. */
export interface TeamsRenameOptions {
  team: string;
  name: string;
  slug?: string;
  json?: boolean;
}

export function registerTeamsRename(teams: Command, ctx: CommandContext): void {
  defineVerb(
    teams,
    {
      name: "rename",
      description: "rename a workspace; its slug follows the name unless --slug is given",
      json: true,
      examples: ['outreach admin teams rename --team personal --name "Acme Dental"', "outreach admin teams rename --team personal --name Acme --slug acme"],
    },
    (command) =>
      command
        .addOption(teamSlugFlag())
        .requiredOption("--name <name>", "the new name")
        .option("--slug <slug>", "the new slug (lowercase letters, digits, dashes)"),
  ).action((options: TeamsRenameOptions) => runTeamsRename(ctx, options));
}

export function runTeamsRename(ctx: CommandContext, options: TeamsRenameOptions): void {
  const team = ctx.openInstance().services.identity.renameTeam({ teamSlug: options.team, name: options.name, slug: options.slug });
  if (options.json) return printJson(ctx.io, { id: team.id, name: team.name, slug: team.slug, plan: team.plan });
  ctx.info(`Workspace ${options.team} is now "${team.name}" (${team.slug}).`);
}

/** `outreach admin teams set-plan`: a workspace's plan and, optionally, its own limits. */
export interface TeamsSetPlanFlags {
  team: string;
  plan: string;
  dailySearches?: string;
  maxContacts?: string;
}

export interface TeamsSetPlanOptions {
  team: string;
  plan: string;
  /** undefined: the plan's; null: unlimited. */
  dailySearches: number | null | undefined;
  maxContacts: number | null | undefined;
}

export function registerTeamsSetPlan(teams: Command, ctx: CommandContext): void {
  defineVerb(
    teams,
    {
      name: "set-plan",
      description: "change a workspace's plan and, optionally, override its limits",
      examples: ["outreach admin teams set-plan --team acme --plan pro", "outreach admin teams set-plan --team acme --plan free --daily-searches 100"],
    },
    (command) =>
      command
        .addOption(teamSlugFlag())
        .requiredOption("--plan <plan>", "plan name")
        .option("--daily-searches <n>", "daily lead searches for this workspace (a number or 'unlimited')")
        .option("--max-contacts <n>", "contact limit for this workspace (a number or 'unlimited')"),
  ).action((flags: TeamsSetPlanFlags) => runTeamsSetPlan(ctx, parseTeamsSetPlanOptions(flags)));
}

export function parseTeamsSetPlanOptions(flags: TeamsSetPlanFlags): TeamsSetPlanOptions {
  return {
    team: flags.team,
    plan: flags.plan,
    dailySearches: limitFlag("--daily-searches", flags.dailySearches),
    maxContacts: limitFlag("--max-contacts", flags.maxContacts),
  };
}

export function runTeamsSetPlan(ctx: CommandContext, options: TeamsSetPlanOptions): void {
  const services = ctx.openInstance().services;
  const team = services.identity.setPlan({ teamSlug: options.team, plan: options.plan, dailySearches: options.dailySearches, maxContacts: options.maxContacts });
  const limits = services.plans.limitsForTeam(team.id);
  ctx.info(
    `${team.slug}: plan ${limits.plan}, daily searches ${limits.dailySearches ?? "unlimited"}, contacts ${limits.maxContacts ?? "unlimited"}, custom sender ${limits.customSender ? "yes" : "no"}.`,
  );
}
