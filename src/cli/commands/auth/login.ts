import { password } from "@inquirer/prompts";
import type { Command } from "commander";
import { ApiClient, ApiError } from "../../../client/api-client.js";
import { RemoteTransport } from "../../../client/transports.js";
import { updateConfig } from "../../config.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT, UsageError } from "../../exit-codes.js";
import { promptContext, readAll } from "../../io.js";
import { defineVerb } from "../shared.js";

/** `outreach auth login`: a token checked against a server's /user/me and saved as the remote login. */
export interface LoginOptions {
  /** Read the token from standard input. */
  withToken?: boolean;
}

export function registerLogin(auth: Command, ctx: CommandContext): void {
  defineVerb(
    auth,
    {
      name: "login",
      description: "check a token against a server's /user/me and save it as the remote login",
      examples: ["outreach auth login --base-url http://127.0.0.1:8787 --token otr_pat_…", "echo $TOKEN | outreach auth login --base-url https://leads.example.com --with-token"],
    },
    (command) => command.option("--with-token", "read the token from standard input"),
  ).action((options: LoginOptions) => runLogin(ctx, options));
}

export async function runLogin(ctx: CommandContext, options: LoginOptions): Promise<void> {
  const baseUrl = ctx.globals.baseUrl ?? ctx.env.OUTREACH_BASE_URL;
  if (!baseUrl) throw new UsageError("missing --base-url (the server to sign in to, e.g. http://127.0.0.1:8787)");
  const token = await loginToken(ctx, options);
  const mode = ctx.mode();
  const url = mode.kind === "remote" ? mode.baseUrl : baseUrl;
  const client = new ApiClient(new RemoteTransport(url), token);
  let user;
  try {
    user = await client.call("user.me");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw new CliError(`the server at ${url} refused the token: ${err.message}`, EXIT.auth);
    throw err;
  }
  const path = updateConfig(ctx.env, (config) => {
    config.remote = { baseUrl: url, token };
  });
  ctx.info(`Logged in to ${url} as ${user.name} <${user.email}>; saved in ${path}.`);
}

/** The token: --token or OUTREACH_TOKEN, else standard input with --with-token, else a prompt on a terminal. */
async function loginToken(ctx: CommandContext, options: LoginOptions): Promise<string> {
  let token = ctx.globals.token ?? ctx.env.OUTREACH_TOKEN;
  if (!token && options.withToken) token = (await readAll(ctx.io.stdin)).trim();
  if (!token && ctx.io.stdinIsTTY) {
    token = (await password({ message: "Personal access token", mask: "*" }, promptContext(ctx.io))).trim();
  }
  if (!token) throw new UsageError("missing token: pass --token, set OUTREACH_TOKEN, or use --with-token < file");
  return token;
}
