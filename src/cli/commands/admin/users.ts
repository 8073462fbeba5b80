import type { Command } from "commander";
import { toUser } from "../../../services/access/identity.js";
import type { CommandContext } from "../../context.js";
import { printJson, printRows, timeCell } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";
import { userEmailFlag } from "./admin-flags.js";

/** `outreach admin users create`: a user and their first personal access token. */
export interface UsersCreateOptions {
  email: string;
  name: string;
  json?: boolean;
}

export function registerUsersCreate(users: Command, ctx: CommandContext): void {
  defineVerb(
    users,
    { name: "create", description: "create a user and print their first personal access token", json: true, examples: ["outreach admin users create --email bob@example.com --name Bob"] },
    (command) =>
      command
        .requiredOption("--email <email>", "email address")
        .requiredOption("--name <name>", "display name"),
  ).action((options: UsersCreateOptions) => runUsersCreate(ctx, options));
}

export function runUsersCreate(ctx: CommandContext, options: UsersCreateOptions): void {
  const identity = ctx.openInstance().services.identity;
  const user = identity.createUser({ name: options.name, email: options.email });
  const token = identity.issuePersonalToken(user.id, "admin");
  if (options.json) return printJson(ctx.io, { user: toUser(user), token: token.raw });
  ctx.info(`Created ${user.name} <${user.email}> (${user.id}). Their token, shown once:`);
  ctx.io.stdout.write(token.raw + "\n");
}

/** `outreach admin users list`: every user and how many workspaces each is in. */
export type UsersListOptions = JsonOption;

export function registerUsersList(users: Command, ctx: CommandContext): void {
  defineVerb(users, { name: "list", description: "list every user and how many workspaces each is in", json: true, examples: ["outreach admin users list", "outreach admin users list --json"] }).action((options: UsersListOptions) => runUsersList(ctx, options));
}

export function runUsersList(ctx: CommandContext, options: UsersListOptions): void {
  const rows = ctx.openInstance().services.identity.listUsers();
  if (options.json) return printJson(ctx.io, { users: rows });
  const now = ctx.clock.now();
  printRows(ctx.io, ctx.env, rows, [
    { header: "EMAIL", value: (u) => u.email },
    { header: "NAME", value: (u) => u.name },
    { header: "WORKSPACES", value: (u) => u.workspaces },
    { header: "CREATED", value: (u) => timeCell(ctx.io, now, u.createdAt) },
    { header: "ID", value: (u) => u.id },
  ]);
}

/** `outreach admin users rm`: a user with their memberships and tokens. */
export interface UsersRmOptions {
  email: string;
  withWorkspaces?: boolean;
  json?: boolean;
}

export function registerUsersRm(users: Command, ctx: CommandContext): void {
  defineVerb(
    users,
    {
      name: "rm",
      description: "remove a user with their memberships and tokens (not the only owner of a workspace others are in, nor the only member of one)",
      json: true,
      examples: ["outreach admin users rm --email bob@example.com", "outreach admin users rm --email bob@example.com --with-workspaces"],
    },
    (command) =>
      command
        .addOption(userEmailFlag())
        .option("--with-workspaces", "also remove the workspaces the user is the only member of, with everything they hold"),
  ).action((options: UsersRmOptions) => runUsersRm(ctx, options));
}

export function runUsersRm(ctx: CommandContext, options: UsersRmOptions): void {
  const { user, removedWorkspaces } = ctx.openInstance().services.identity.removeUser(options.email, { withWorkspaces: options.withWorkspaces });
  if (options.json) return printJson(ctx.io, { user: toUser(user), removedWorkspaces });
  ctx.info(`Removed ${user.email} (${user.id}), their memberships and tokens.`);
  if (removedWorkspaces.length) ctx.info(`Removed the workspace${removedWorkspaces.length === 1 ? "" : "s"} they were alone in, with all it held: ${removedWorkspaces.join(", ")}.`);
}
