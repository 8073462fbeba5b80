import type { Command } from "commander";
import { toUser } from "../../../services/access/identity.js";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { userEmailFlag } from "./admin-flags.js";

/** `outreach admin tokens create`: a new personal access token for a user. */
export interface TokensCreateOptions {
  email: string;
  name: string;
  json?: boolean;
}

export function registerTokensCreate(tokens: Command, ctx: CommandContext): void {
  defineVerb(tokens, { name: "create", description: "issue a new personal access token for a user", json: true, examples: ["outreach admin tokens create --email ada@example.com"] }, (command) =>
    command.addOption(userEmailFlag()).option("--name <name>", "a label for the token", "admin"),
  ).action((options: TokensCreateOptions) => runTokensCreate(ctx, options));
}

export function runTokensCreate(ctx: CommandContext, options: TokensCreateOptions): void {
  const identity = ctx.openInstance().services.identity;
  const user = identity.requireUserByEmail(options.email);
  const token = identity.issuePersonalToken(user.id, options.name);
  if (options.json) return printJson(ctx.io, { user: toUser(user), token: token.raw });
  ctx.info(`New token for ${user.email} (shown once):`);
  ctx.io.stdout.write(token.raw + "\n");
}
