import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
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
 * The verbs of each sub-group share a file in admin/ (users.ts: users create, list, rm);
 * this only attaches them, in the order of --help.
 */
export function registerAdmin(program: Command, ctx: CommandContext): void {
  const admin = program.command("admin").description("manage a data directory directly: users, workspaces, plans, tokens, backups");
  attachVerbs(admin.command("users").description("manage users"), ctx, registerUsersCreate, registerUsersList, registerUsersRm);
  attachVerbs(admin.command("teams").description("manage workspaces"), ctx, registerTeamsCreate, registerTeamsList, registerTeamsRename, registerTeamsSetPlan);
  attachVerbs(admin.command("members").description("manage workspace members"), ctx, registerMembersAdd, registerMembersList, registerMembersRm);
  attachVerbs(admin.command("plans").description("the plans and their default limits"), ctx, registerPlansList, registerPlansSet);
  attachVerbs(admin.command("tokens").description("personal access tokens"), ctx, registerTokensCreate);
  registerBackup(admin, ctx);
  attachVerbs(admin.command("keys").description("the data directory's encryption keys"), ctx, registerKeysRotate);
}
