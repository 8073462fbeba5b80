import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { attachVerbs } from "./shared.js";
import { registerLogin } from "./auth/login.js";
import { registerLogout } from "./auth/logout.js";
import { registerStatus } from "./auth/status.js";
import { registerTokensCreate, registerTokensList, registerTokensRevoke } from "./auth/tokens.js";

/** `outreach auth`: signing in to a remote server; each verb is its own file in auth/ (`auth tokens` in tokens.ts). */
export function registerAuth(program: Command, ctx: CommandContext): void {
  const auth = program.command("auth").description("sign in to a remote outreach server, or show how you are signed in");
  attachVerbs(auth, ctx, registerLogin, registerStatus, registerLogout);
  attachVerbs(auth.command("tokens").description("your personal access tokens: list, create, revoke"), ctx, registerTokensList, registerTokensCreate, registerTokensRevoke);
}
