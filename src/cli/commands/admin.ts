import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { registerBackup } from "./admin/backup.js";
import { registerKeysRotate } from "./admin/keys-rotate.js";
import { registerMembersAdd } from "./admin/members.js";
import { registerMembersList } from "./admin/members.js";
import { registerMembersRm } from "./admin/members.js";
import { registerPlansList } from "./admin/plans.js";
import { registerPlansSet } from "./admin/plans.js";
import { registerTeamsCreate } from "./admin/teams.js";
import { registerTeamsList } from "./admin/teams.js";
import { registerTeamsRename } from "./admin/teams.js";
import { registerTeamsSetPlan } from "./admin/teams.js";
import { registerTokensCreate } from "./admin/tokens.js";
import { registerUsersCreate } from "./admin/users.js";
import { registerUsersList } from "./admin/users.js";
import { registerUsersRm } from "./admin/users.js";

/**
 * Self-hosting administration, acting on the data directory directly (like
 * `pocketbase superuser`): these are the only commands besides `init` that open the store.
 * Each verb is its own file in admin/; this only attaches them, in the order of --help.
 */
export function registerAdmin(program: Command, ctx: CommandContext): void {
  const admin = program.command("admin").description("manage a data directory directly: users, workspaces, plans, tokens, backups");

  const users = admin.command("users").description("manage users");
  registerUsersCreate(users, ctx);
  registerUsersList(users, ctx);
  registerUsersRm(users, ctx);

  const teams = admin.command("teams").description("manage workspaces");
  registerTeamsCreate(teams, ctx);
  registerTeamsList(teams, ctx);
  registerTeamsRename(teams, ctx);
  registerTeamsSetPlan(teams, ctx);

  const members = admin.command("members").description("manage workspace members");
  registerMembersAdd(members, ctx);
  registerMembersList(members, ctx);
  registerMembersRm(members, ctx);

  const plans = admin.command("plans").description("the plans and their default limits");
  registerPlansList(plans, ctx);
  registerPlansSet(plans, ctx);

  const tokens = admin.command("tokens").description("personal access tokens");
  registerTokensCreate(tokens, ctx);

  registerBackup(admin, ctx);

  const keys = admin.command("keys").description("the data directory's encryption keys");
  registerKeysRotate(keys, ctx);
}
