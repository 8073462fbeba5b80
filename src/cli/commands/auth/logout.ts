import type { Command } from "commander";
import { ApiClient } from "../../../client/api-client.js";
import { RemoteTransport } from "../../../client/transports.js";
import { loadConfig, updateConfig } from "../../config.js";
import type { CommandContext } from "../../context.js";
import { defineVerb } from "../shared.js";

/** `outreach auth logout`: the saved remote login forgotten (the CLI goes back to the local data directory). */
export interface LogoutOptions {
  /** Also revoke the saved token on the server. */
  revoke?: boolean;
}

export function registerLogout(auth: Command, ctx: CommandContext): void {
  defineVerb(auth, { name: "logout", description: "forget the saved remote login (the CLI goes back to the local data directory)", examples: ["outreach auth logout", "outreach auth logout --revoke"] }, (command) =>
    command.option("--revoke", "also revoke the saved token on the server, so it stops working everywhere"),
  ).action((options: LogoutOptions) => runLogout(ctx, options));
}

export async function runLogout(ctx: CommandContext, options: LogoutOptions): Promise<void> {
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
}
