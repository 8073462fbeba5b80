import type { Command } from "commander";
import { KEY_SCOPES, type KeyScope, type TeamApiKey } from "../../core/schemas/team-api-key.js";
import type { CommandContext } from "../context.js";
import { apiFields } from "../flag-language.js";
import { printJson, printRows, timeCell } from "../output.js";
import { attachVerbs, defineVerb, type IdOptions, type JsonOption } from "./shared.js";

/**
 * `outreach keys list|create|rotate|revoke`: team API keys for integrations. A small group,
 * so its verbs share this file: an options type, a definition and a run each.
 */

function state(key: TeamApiKey, now: Date): string {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt <= now.toISOString()) return "expired";
  return "active";
}

/** The raw key alone on stdout (so `$(outreach keys create …)` captures it), the warning on stderr. */
function printIssued(ctx: CommandContext, issued: { apiKey: TeamApiKey; key: string }, json: boolean | undefined, verb: string): void {
  ctx.warn(`This is the only time the key is shown: store it now (e.g. in your secret manager). It cannot be retrieved again.`);
  ctx.info(`${verb} team API key ${issued.apiKey.id} (${issued.apiKey.name}; scopes ${issued.apiKey.scopes.join(", ")})`);
  if (json) return printJson(ctx.io, issued);
  ctx.io.stdout.write(issued.key + "\n");
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(",").map((s) => s.trim()).filter(Boolean)];
}

export function registerKeys(program: Command, ctx: CommandContext): void {
  const keys = program.command("keys").description("team API keys for integrations (create, rotate and revoke: owners and admins)");
  attachVerbs(keys, ctx, registerKeysList, registerKeysCreate, registerKeysRotate, registerKeysRevoke);
}

export type KeysListOptions = JsonOption;

export function registerKeysList(keys: Command, ctx: CommandContext): void {
  defineVerb(
    keys,
    { name: "list", description: "list the workspace's team API keys (never the raw keys)", json: true, examples: ["outreach keys list", "outreach keys list --json"] },
  ).action((options: KeysListOptions) => runKeysList(ctx, options));
}

export async function runKeysList(ctx: CommandContext, options: KeysListOptions): Promise<void> {
  const result = await (await ctx.client()).call("teamApiKeys.list");
  if (options.json) return printJson(ctx.io, result);
  const now = ctx.clock.now();
  printRows(ctx.io, ctx.env, result.apiKeys, [
    { header: "ID", value: (k) => k.id },
    { header: "NAME", value: (k) => k.name },
    { header: "PREFIX", value: (k) => k.keyPrefix },
    { header: "SCOPES", value: (k) => k.scopes.join(",") },
    { header: "STATE", value: (k) => state(k, now) },
    { header: "LAST USED", value: (k) => timeCell(ctx.io, now, k.lastUsedAt, "never") },
    { header: "EXPIRES", value: (k) => timeCell(ctx.io, now, k.expiresAt, "never") },
  ]);
}

export interface KeysCreateOptions {
  name: string;
  /** As typed: unknown scopes go to the server, whose 400 names them and the scopes it knows. */
  scope: string[];
  expiresAt?: string;
  json?: boolean;
}

export function registerKeysCreate(keys: Command, ctx: CommandContext): void {
  const command = defineVerb(
    keys,
    {
      name: "create",
      description: "create a team API key; prints the raw key once, on stdout",
      json: true,
      examples: ['outreach keys create --name "Signup webhook" --scope campaigns:trigger', "KEY=$(outreach keys create --name Zapier --expires-at 2027-01-01T00:00:00Z)"],
    },
    (command) =>
      command
        .requiredOption("--name <name>", "what the key is for (e.g. Zapier)")
        .option("--scope <scope>", `a scope; repeat or comma-separate (known: ${KEY_SCOPES.join(", ")}; default: campaigns:trigger)`, collect, [] as string[])
        .option("--expires-at <datetime>", "expiry (ISO 8601); default: never"),
  ).action((options: KeysCreateOptions) => runKeysCreate(ctx, options));
  apiFields(command, { scopes: "--scope" });
}

export async function runKeysCreate(ctx: CommandContext, options: KeysCreateOptions): Promise<void> {
  const scopes = (options.scope.length ? options.scope : ["campaigns:trigger"]) as KeyScope[];
  const issued = await (await ctx.client()).call("teamApiKeys.create", { body: { name: options.name, scopes, ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}) } });
  printIssued(ctx, issued, options.json, "Created");
}

/** `rotate` and `revoke` act on one key. */
export type KeyIdOptions = IdOptions;

export function registerKeysRotate(keys: Command, ctx: CommandContext): void {
  defineVerb(keys, { name: "rotate", description: "replace a key's secret: the old key stops working at once; prints the new one once", json: true, examples: ["outreach keys rotate key_3kF9x2aB7dQ1LmZp"] }, (command) =>
    command.argument("<id>", "key id"),
  ).action((id: string, options: { json?: boolean }) => runKeysRotate(ctx, { id, json: options.json }));
}

export async function runKeysRotate(ctx: CommandContext, { id, json }: KeyIdOptions): Promise<void> {
  printIssued(ctx, await (await ctx.client()).call("teamApiKeys.rotate", { params: { id } }), json, "Rotated");
}

export function registerKeysRevoke(keys: Command, ctx: CommandContext): void {
  defineVerb(keys, { name: "revoke", description: "revoke a key: it stops working at once", json: true, examples: ["outreach keys revoke key_3kF9x2aB7dQ1LmZp"] }, (command) =>
    command.argument("<id>", "key id"),
  ).action((id: string, options: { json?: boolean }) => runKeysRevoke(ctx, { id, json: options.json }));
}

export async function runKeysRevoke(ctx: CommandContext, { id, json }: KeyIdOptions): Promise<void> {
  const { apiKey } = await (await ctx.client()).call("teamApiKeys.revoke", { params: { id } });
  if (json) return printJson(ctx.io, { apiKey });
  ctx.info(`${ctx.color.green("✓")} team API key ${apiKey.id} (${apiKey.name}) revoked at ${apiKey.revokedAt}`);
}
