import type { Command } from "commander";
import type { PersonalToken } from "../../../core/schemas/personal-token.js";
import type { CommandContext } from "../../context.js";
import { printJson, printRows, timeCell } from "../../output.js";
import { defineVerb, type IdOptions, type JsonOption } from "../shared.js";

/**
 * `outreach auth tokens list|create|revoke`: the signed-in user's personal access tokens
 * on the server in use (or the local data directory). One options type, definition and run per verb.
 */

export type TokensListOptions = JsonOption;

export function registerTokensList(tokens: Command, ctx: CommandContext): void {
  defineVerb(
    tokens,
    { name: "list", description: "list your tokens that are not revoked (* marks the one in use)", json: true, examples: ["outreach auth tokens list", "outreach --base-url https://leads.example.com auth tokens list --json"] },
  ).action((options: TokensListOptions) => runTokensList(ctx, options));
}

export async function runTokensList(ctx: CommandContext, options: TokensListOptions): Promise<void> {
  const result = await (await ctx.client()).call("userTokens.list", { signal: ctx.io.signal });
  if (options.json) return printJson(ctx.io, result);
  const now = ctx.clock.now();
  printRows(ctx.io, ctx.env, result.tokens, [
    { header: "", value: (t: PersonalToken) => (t.current ? "*" : "") },
    { header: "ID", value: (t) => t.id },
    { header: "NAME", value: (t) => t.name },
    { header: "PREFIX", value: (t) => t.prefix },
    { header: "CREATED", value: (t) => timeCell(ctx.io, now, t.createdAt) },
    { header: "LAST USED", value: (t) => timeCell(ctx.io, now, t.lastUsedAt, "never") },
    { header: "EXPIRES", value: (t) => timeCell(ctx.io, now, t.expiresAt, "never") },
  ]);
}

export interface TokensCreateOptions {
  name: string;
  expiresAt?: string;
  json?: boolean;
}

export function registerTokensCreate(tokens: Command, ctx: CommandContext): void {
  defineVerb(
    tokens,
    {
      name: "create",
      description: "create a token for another machine or script; prints it once, alone on stdout",
      json: true,
      examples: ["outreach auth tokens create --name laptop", "TOKEN=$(outreach auth tokens create --name ci --expires-at 2027-01-01T00:00:00Z)"],
    },
    (command) =>
      command
        .requiredOption("--name <name>", "what the token is for (e.g. laptop, nightly-export)")
        .option("--expires-at <datetime>", "expiry (ISO 8601); default: never"),
  ).action((options: TokensCreateOptions) => runTokensCreate(ctx, options));
}

export async function runTokensCreate(ctx: CommandContext, options: TokensCreateOptions): Promise<void> {
  const issued = await (await ctx.client()).call("userTokens.create", {
    body: { name: options.name, ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}) },
    signal: ctx.io.signal,
  });
  ctx.warn("This is the only time the token is shown: store it now. It cannot be retrieved again.");
  ctx.info(`Created token ${issued.token.id} (${issued.token.name}${issued.token.expiresAt ? `, expires ${issued.token.expiresAt}` : ""}).`);
  if (options.json) return printJson(ctx.io, issued);
  ctx.io.stdout.write(issued.key + "\n");
}

export type TokensRevokeOptions = IdOptions;

export function registerTokensRevoke(tokens: Command, ctx: CommandContext): void {
  defineVerb(
    tokens,
    { name: "revoke", description: "revoke a token: it is refused from the next request on", json: true, examples: ["outreach auth tokens revoke tok_3kF9x2aB7dQ1LmZp"] },
    (command) => command.argument("<id>", "token id (tok_…)"),
  ).action((id: string, options: { json?: boolean }) => runTokensRevoke(ctx, { id, json: options.json }));
}

export async function runTokensRevoke(ctx: CommandContext, { id, json }: TokensRevokeOptions): Promise<void> {
  const client = await ctx.client();
  const current = (await client.call("userTokens.list", { signal: ctx.io.signal })).tokens.find((t) => t.current);
  const result = await client.call("userTokens.revoke", { params: { id }, signal: ctx.io.signal });
  if (json) printJson(ctx.io, result);
  ctx.info(`${ctx.color.green("✓")} token ${id} revoked.`);
  if (current?.id === id) ctx.warn("That was the token this CLI signs in with: sign in again (`outreach auth login`) to go on.");
}
