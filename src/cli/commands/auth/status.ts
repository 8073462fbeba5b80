import type { Command } from "commander";
import { TransportError } from "../../../client/transports.js";
import type { Workspace } from "../../../core/schemas/team.js";
import type { User } from "../../../core/schemas/user.js";
import { displayPrefix } from "../../../core/tokens.js";
import { configPath } from "../../config.js";
import type { CommandContext, Mode } from "../../context.js";
import { printJson, printRecord } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";

/**
 * `outreach auth status`: where the CLI works and as whom. Like the GitHub CLI's, it works
 * offline: what is known locally (the server, where the token comes from, its prefix) is
 * printed even when the server cannot be reached, which is said and is not a failure (exit
 * 0); a token the server refuses, or none, is exit 4 (decisions.md: unauthorized).
 */
export type StatusOptions = JsonOption;

export function registerStatus(auth: Command, ctx: CommandContext): void {
  defineVerb(
    auth,
    {
      name: "status",
      description: "show the server or data directory in use and who you are there (offline too)",
      json: true,
      examples: ["outreach auth status", "outreach --base-url http://127.0.0.1:8787 auth status --json"],
    },
  ).action((options: StatusOptions) => runStatus(ctx, options));
}

/** What `status` found out: where, with which token, and who (unknown when the server could not be reached). */
interface Status {
  mode: Mode;
  where: string;
  token: { prefix: string; source: string } | null;
  identity?: { user: User; activeTeam: Workspace };
  unreachable?: string;
}

export async function runStatus(ctx: CommandContext, options: StatusOptions): Promise<void> {
  const mode = ctx.mode();
  const status: Status = {
    mode,
    where: mode.kind === "remote" ? mode.baseUrl : mode.dataDir,
    token: mode.kind === "remote" && mode.token ? { prefix: `${displayPrefix(mode.token)}…`, source: tokenSource(ctx) } : null,
  };
  try {
    const client = await ctx.client();
    const [user, teams] = await Promise.all([client.call("user.me", { signal: ctx.io.signal }), client.call("teams.list", { signal: ctx.io.signal })]);
    status.identity = { user, activeTeam: teams.activeTeam };
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    status.unreachable = err.message;
  }
  if (options.json) return printStatusJson(ctx, status);
  printStatus(ctx, status);
}

function printStatusJson(ctx: CommandContext, { mode, where, token, identity, unreachable }: Status): void {
  printJson(ctx.io, {
    mode: mode.kind,
    target: where,
    ...(token ? { token } : {}),
    reachable: !unreachable,
    ...(unreachable ? { error: unreachable } : {}),
    user: identity?.user ?? null,
    activeTeam: identity?.activeTeam ?? null,
  });
}

function printStatus(ctx: CommandContext, { mode, where, token, identity, unreachable }: Status): void {
  printRecord(ctx.io, [
    ["mode", mode.kind],
    [mode.kind === "remote" ? "server" : "data dir", where],
    ...(token ? [["token", `${token.prefix} (${token.source})`] as [string, string]] : []),
    ...(identity
      ? [
          ["user", `${identity.user.name} <${identity.user.email}>`] as [string, string],
          ["workspace", `${identity.activeTeam.name} (${identity.activeTeam.role})`] as [string, string],
        ]
      : []),
  ]);
  if (unreachable) ctx.warn(`the server could not be reached, so who you are there is unknown: ${unreachable}`);
}

/** Where the token in use comes from, as the user would look for it. */
function tokenSource(ctx: CommandContext): string {
  if (ctx.globals.token) return "--token";
  if (ctx.env.OUTREACH_TOKEN) return "OUTREACH_TOKEN";
  return `saved by \`outreach auth login\` in ${configPath(ctx.env)}`;
}
