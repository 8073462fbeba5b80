import { password } from "@inquirer/prompts";
import type { Command } from "commander";
import { ApiClient, ApiError } from "../../client/api-client.js";
import { RemoteTransport } from "../../client/transports.js";
import { loadConfig, updateConfig } from "../config.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, UsageError } from "../exit-codes.js";
import { promptContext, readAll } from "../io.js";
import { registerAuthStatus } from "./auth-status.js";
import { registerAuthTokens } from "./auth-tokens.js";
import { example } from "./shared.js";

export function registerAuth(program: Command, ctx: CommandContext): void {
  const auth = program.command("auth").description("sign in to a remote outreach server, or show how you are signed in");

  const login = auth
    .command("login")
    .description("check a token against a server's /user/me and save it as the remote login")
    .option("--with-token", "read the token from standard input")
    .action(async (options: { withToken?: boolean }) => {
      const baseUrl = ctx.globals.baseUrl ?? ctx.env.OUTREACH_BASE_URL;
      if (!baseUrl) throw new UsageError("missing --base-url (the server to sign in to, e.g. http://127.0.0.1:8787)");
      let token = ctx.globals.token ?? ctx.env.OUTREACH_TOKEN;
      if (!token && options.withToken) token = (await readAll(ctx.io.stdin)).trim();
      if (!token && ctx.io.stdinIsTTY) {
        token = (await password({ message: "Personal access token", mask: "*" }, promptContext(ctx.io))).trim();
      }
      if (!token) throw new UsageError("missing token: pass --token, set OUTREACH_TOKEN, or use --with-token < file");
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
    });
  example(login, "outreach auth login --base-url http://127.0.0.1:8787 --token otr_pat_…", "echo $TOKEN | outreach auth login --base-url https://leads.example.com --with-token");

  registerAuthStatus(auth, ctx);

  const logout = auth
    .command("logout")
    .description("forget the saved remote login (the CLI goes back to the local data directory)")
    .option("--revoke", "also revoke the saved token on the server, so it stops working everywhere")
    .action(async (options: { revoke?: boolean }) => {
      const saved = loadConfig(ctx.env).remote;
      if (!saved) {
        ctx.info("Not logged in to a remote server.");
        return;
      }
      if (options.revoke) {
        const client = new ApiClient(new RemoteTransport(saved.baseUrl), saved.token);
        const current = (await client.call("userTokens.list", { signal: ctx.io.signal })).tokens.find((t) => t.current);
        if (current) await client.call("userTokens.revoke", { params: { id: current.id }, signal: ctx.io.signal });
      }
      updateConfig(ctx.env, (config) => {
        delete config.remote;
      });
      ctx.info(
        `Logged out of ${saved.baseUrl}.` +
          (options.revoke ? " The token was revoked on the server." : " The token itself stays valid: `outreach auth logout --revoke`, or `outreach auth tokens revoke ID`, revokes it."),
      );
    });
  example(logout, "outreach auth logout", "outreach auth logout --revoke");
  registerAuthTokens(auth, ctx);
}
