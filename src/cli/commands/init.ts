import { input } from "@inquirer/prompts";
import type { Command } from "commander";
import { emailProblem, nameProblem, toUser, toWorkspace } from "../../services/access/identity.js";
import { updateConfig } from "../config.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, UsageError } from "../exit-codes.js";
import { promptContext } from "../io.js";
import { printJson } from "../output.js";
import { defineVerb } from "./shared.js";

/** `outreach init`: the data directory, its owner, the first workspace and a token (prompted for on a terminal). */
export interface InitOptions {
  name?: string;
  email?: string;
  team?: string;
  plan: string;
  json?: boolean;
}

export function registerInit(program: Command, ctx: CommandContext): void {
  defineVerb(
    program,
    {
      name: "init",
      description: "create the data directory, its owner, the first workspace and a personal access token",
      examples: ["outreach init --name Ada --email ada@example.com --team Acme", "outreach init --data-dir ./data --name Ada --email ada@example.com --team Acme --json"],
    },
    (command) =>
      command
        .option("--name <name>", "your name")
        .option("--email <email>", "your email address")
        .option("--team <name>", "name of the first workspace")
        .option("--plan <plan>", "plan of the workspace (free, pro, self-hosted)", "self-hosted")
        .option("--json", "print {user, team, token} as JSON"),
  ).action((options: InitOptions) => runInit(ctx, options));
}

export async function runInit(ctx: CommandContext, options: InitOptions): Promise<void> {
  const dataDir = ctx.dataDir();
  const instance = ctx.openInstance(dataDir);
  const identity = instance.services.identity;
  // A directory the CLI initialised with defaults on first use is adopted (its user and
  // workspace renamed, what they hold kept); any other initialised one is left alone.
  const adopting = identity.defaultOwner();
  if (identity.users.count() > 0 && !adopting) {
    throw new CliError(`${dataDir} is already initialised; use \`outreach admin users create\` to add people`, EXIT.conflict);
  }
  const values = { name: options.name, email: options.email, team: options.team };
  const missing = Object.entries(values).filter(([, v]) => !v);
  // Prompt only when someone is there to answer and nothing was given by flag.
  const interactive = ctx.io.stdinIsTTY && ctx.io.stderrIsTTY && !options.name && !options.email && !options.team;
  if (missing.length && !interactive) {
    throw new UsageError(`missing ${missing.map(([k]) => `--${k}`).join(", ")} (no prompts without a terminal)`);
  }
  if (interactive) {
    // Each answer is checked as it is typed in: a bad one shows why and the question is asked again.
    const ask = (message: string, check: (value: string) => string | undefined, fallback?: string) =>
      input({ message, default: fallback, validate: (value) => check(value) ?? true }, promptContext(ctx.io));
    values.name = (await ask("Your name", (v) => nameProblem(v))).trim();
    values.email = (await ask("Your email", emailProblem)).trim();
    values.team = (await ask("Workspace name", (v) => nameProblem(v, "workspace name"), `${values.name}'s workspace`)).trim();
  }
  const person = { name: values.name!, email: values.email!, team: values.team!, plan: options.plan };
  const result = adopting ? identity.adoptDefault(person) : identity.bootstrap(person);
  if (adopting) ctx.info(`Adopted the default user ${adopting.user.email} and workspace "${adopting.team.name}" of ${dataDir} (their data is kept).`);
  updateConfig(ctx.env, (config) => {
    config.local = { ...config.local, [dataDir]: { token: result.token } };
  });
  const user = toUser(result.user);
  const team = toWorkspace(result.team, "owner");
  if (options.json) {
    printJson(ctx.io, { user, team, token: result.token });
    return;
  }
  ctx.info(`Initialised ${dataDir}: ${user.name} <${user.email}> owns workspace "${team.name}" (${team.slug}, plan ${options.plan}).`);
  ctx.info("Your personal access token (shown once; saved for local use in the CLI config):");
  ctx.io.stdout.write(result.token + "\n");
}
