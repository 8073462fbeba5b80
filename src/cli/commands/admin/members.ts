import { type Command, Option } from "commander";
import { Role } from "../../../core/schemas/team.js";
import type { CommandContext } from "../../context.js";
import { defineVerb } from "../shared.js";
import { printJson, printRows, timeCell } from "../../output.js";
import { toUser } from "../../../services/access/identity.js";
import { teamSlugFlag, userEmailFlag } from "./admin-flags.js";

/** `outreach admin members add`: a user joins a workspace, or changes role in it. */
export interface MembersAddOptions {
  team: string;
  email: string;
  role: Role;
}

export function registerMembersAdd(members: Command, ctx: CommandContext): void {
  defineVerb(
    members,
    { name: "add", description: "add a user to a workspace (or change their role)", examples: ["outreach admin members add --team acme --email bob@example.com --role admin"] },
    (command) =>
      command
        .addOption(teamSlugFlag())
        .addOption(userEmailFlag())
        .addOption(new Option("--role <role>", Role.options.join(", ")).choices(Role.options).makeOptionMandatory()),
  ).action((options: MembersAddOptions) => runMembersAdd(ctx, options));
}

export function runMembersAdd(ctx: CommandContext, options: MembersAddOptions): void {
  const { team, user } = ctx.openInstance().services.identity.addMember({ teamSlug: options.team, email: options.email, role: options.role });
  ctx.info(`${user.email} is now ${options.role} of ${team.slug}.`);
}

/** `outreach admin members list`: a workspace's members and their roles. */
export interface MembersListOptions {
  team: string;
  json?: boolean;
}

export function registerMembersList(members: Command, ctx: CommandContext): void {
  defineVerb(members, { name: "list", description: "list a workspace's members and their roles", json: true, examples: ["outreach admin members list --team acme"] }, (command) =>
    command.addOption(teamSlugFlag()),
  ).action((options: MembersListOptions) => runMembersList(ctx, options));
}

export function runMembersList(ctx: CommandContext, options: MembersListOptions): void {
  const rows = ctx.openInstance().services.identity.listMembers(options.team);
  if (options.json) return printJson(ctx.io, { members: rows });
  const now = ctx.clock.now();
  printRows(ctx.io, ctx.env, rows, [
    { header: "EMAIL", value: (m) => m.email },
    { header: "NAME", value: (m) => m.name },
    { header: "ROLE", value: (m) => m.role },
    { header: "JOINED", value: (m) => timeCell(ctx.io, now, m.joinedAt) },
  ]);
}

/** `outreach admin members rm`: a user leaves a workspace (the user and their other workspaces stay). */
export interface MembersRmOptions {
  team: string;
  email: string;
  json?: boolean;
}

export function registerMembersRm(members: Command, ctx: CommandContext): void {
  defineVerb(
    members,
    {
      name: "rm",
      description: "take a user out of a workspace (the user and their other workspaces stay; the last owner cannot leave)",
      json: true,
      examples: ["outreach admin members rm --team acme --email bob@example.com"],
    },
    (command) => command.addOption(teamSlugFlag()).addOption(userEmailFlag()),
  ).action((options: MembersRmOptions) => runMembersRm(ctx, options));
}

export function runMembersRm(ctx: CommandContext, options: MembersRmOptions): void {
  const { team, user } = ctx.openInstance().services.identity.removeMember({ teamSlug: options.team, email: options.email });
  if (options.json) return printJson(ctx.io, { team: team.slug, user: toUser(user) });
  ctx.info(`${user.email} is no longer a member of ${team.slug}.`);
}
