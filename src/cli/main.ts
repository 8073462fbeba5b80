import { Command, CommanderError } from "commander";
import { ApiError } from "../client/api-client.js";
import { CommandContext, type RunDeps } from "./context.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { effectiveEnv, givenOrUndefined } from "./environment.js";
import { commandOf, inFlagLanguage, misspelledFlags } from "./flag-language.js";
import { abortOnInterrupt, wasInterrupted } from "./interrupt.js";
import { processIO, stdoutWasClosed, type CliIO } from "./io.js";
import { registerAdmin } from "./commands/admin.js";
import { registerAuth } from "./commands/auth.js";
import { registerDeliver } from "./commands/deliver.js";
import { registerDomains } from "./commands/domains.js";
import { registerBrand } from "./commands/brand.js";
import { registerCampaigns } from "./commands/campaigns.js";
import { registerCompletion } from "./commands/completion.js";
import { registerContacts } from "./commands/contacts.js";
import { registerInit } from "./commands/init.js";
import { registerKeys } from "./commands/keys.js";
import { registerPlaces } from "./commands/places.js";
import { registerLeads } from "./commands/leads.js";
import { registerReplies } from "./commands/replies.js";
import { registerServe } from "./commands/serve.js";
import { registerTeams } from "./commands/teams.js";
import { registerWhoami } from "./commands/whoami.js";

export const VERSION = "0.1.0";

/** Every command group; each file adds its `<noun> <verb>` commands. */
const COMMAND_GROUPS = [
  registerInit,
  registerAuth,
  registerWhoami,
  registerTeams,
  registerLeads,
  registerPlaces,
  registerContacts,
  registerCampaigns,
  registerDomains,
  registerKeys,
  registerBrand,
  registerServe,
  registerDeliver,
  registerReplies,
  registerAdmin,
  registerCompletion,
];

/** Commands that act on a local data directory directly instead of through the API. */
const OPERATOR_COMMANDS = new Set(["init", "admin", "places"]);

/** `["admin", "users", "create"]` for `outreach admin users create`. */
function commandPath(command: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

function buildProgram(ctx: CommandContext): Command {
  const program = new Command("outreach")
    .description("Find local businesses, enrich them from their own websites, and run email outreach.")
    .version(VERSION, "-V, --version")
    .option("--data-dir <dir>", "local data directory (env OUTREACH_DATA_DIR; default $XDG_DATA_HOME/outreach)")
    .option("--base-url <url>", "talk to a remote outreach server (env OUTREACH_BASE_URL)")
    .option("--token <token>", "API token for the server (env OUTREACH_TOKEN)")
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      `
Examples:
  $ outreach init --name Ada --email ada@example.com --team Acme
  $ outreach places import ../shared/data/liechtenstein-2026-03-29.osm.pbf
  $ outreach leads search --location Vaduz --keywords dentist --radius 10
  $ outreach serve --port 8787

Exit codes: 0 ok, 1 error, 2 usage or invalid input, 3 not found, 4 unauthorized or forbidden,
5 conflict, 6 quota, rate limit or provider failure, 130 interrupted.`,
    );
  program.hook("preAction", (_this, action) => {
    const options = action.optsWithGlobals();
    ctx.globals = { ...options, dataDir: givenOrUndefined(options.dataDir), baseUrl: givenOrUndefined(options.baseUrl), token: givenOrUndefined(options.token) };
    ctx.command = action;
    const path = commandPath(action);
    if (OPERATOR_COMMANDS.has(path[0]!)) ctx.refuseOperatorOnRemote(`outreach ${path.join(" ")}`);
  });
  for (const register of COMMAND_GROUPS) register(program, ctx);
  return program;
}

/** commander does not pass these down through addCommand(): apply them to every command. */
function configureTree(command: Command, io: CliIO): void {
  command.exitOverride();
  command.configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
    outputError: (s, write) => write(s),
  });
  for (const sub of command.commands) configureTree(sub, io);
}

/** Run the CLI with injected I/O; returns the exit code and never calls process.exit. */
export async function run(argv: readonly string[], io: CliIO, givenEnv: NodeJS.ProcessEnv, deps: RunDeps = {}): Promise<number> {
  const env = effectiveEnv(givenEnv);
  const ctx = new CommandContext(io, env, deps);
  const program = buildProgram(ctx);
  configureTree(program, io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    // A command that stopped at Ctrl-C and returned (after saying how far it got) is still interrupted.
    if (wasInterrupted(io.signal)) return interrupted(io);
    return EXIT.ok;
  } catch (err) {
    // `| head -1` closed stdout: what the reader wanted is out; nothing to report.
    if (stdoutWasClosed(io)) return EXIT.ok;
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return EXIT.ok;
      // commander has already printed its message; it names a misspelt flag itself,
      // except behind a missing required option, which it reports first.
      if (err.code === "commander.missingMandatoryOptionValue") {
        for (const { typed, suggestion } of misspelledFlags(commandOf(program, argv), argv)) io.stderr.write(`(${typed} is not an option: did you mean ${suggestion}?)\n`);
      }
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    // Ctrl-C: whatever the abort led to (a request cut short, a stream's error line) is the interruption.
    const code = wasInterrupted(io.signal) ? EXIT.interrupted : exitCodeFor(err);
    if (code === EXIT.interrupted) return interrupted(io);
    const raw = err instanceof Error ? err.message : String(err);
    // A 400 names the API's fields; the user typed flags.
    const message = err instanceof ApiError && err.status === 400 ? inFlagLanguage(raw, ctx.command) : raw;
    // In local mode no HTTP was involved: the status would only puzzle.
    const prefix = err instanceof ApiError && ctx.talksHttp !== false ? `error (HTTP ${err.status})` : "error";
    io.stderr.write(`${ctx.color.red(prefix)}: ${message}\n`);
    if (code === EXIT.error && !(err instanceof ApiError) && env.OUTREACH_DEBUG && err instanceof Error && err.stack) {
      io.stderr.write(err.stack + "\n");
    }
    return code;
  } finally {
    ctx.close();
  }
}

/** The one line and exit code of an interrupted command (src/cli/interrupt.ts). */
function interrupted(io: CliIO): number {
  io.stderr.write("interrupted\n");
  return EXIT.interrupted;
}

/**
 * Once a command has returned, whatever it left behind (a drained server's abandoned
 * website fetches, keep-alive sockets) may delay the exit by at most this much.
 */
const EXIT_GRACE_MS = 500;

/** The process entry point (bin/outreach.js). */
export async function main(): Promise<number> {
  const controller = new AbortController();
  const removeInterruptHandler = abortOnInterrupt(controller);
  try {
    const code = await run(process.argv.slice(2), processIO(controller), process.env);
    // Unreferenced: when nothing is left, the process ends at once, as before.
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
    return code;
  } finally {
    removeInterruptHandler();
  }
}
