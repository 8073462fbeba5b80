import { intFlag } from "../flags.js";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

/**
 * What every verb file uses (docs/architecture.md, "The CLI"): a verb is an options type,
 * `registerX(group, ctx)` (its command, flags, examples and action), an optional pure
 * `parseXOptions(args, flags)` and `runX(ctx, options)`; a group file attaches its verbs.
 */

/** Adds a verb (or a sub-group of verbs) to its group. */
export type RegisterVerb = (group: Command, ctx: CommandContext) => void;

/** A group's verbs, attached in the order --help lists them. */
export function attachVerbs(group: Command, ctx: CommandContext, ...verbs: RegisterVerb[]): Command {
  for (const register of verbs) register(group, ctx);
  return group;
}

/** The options of a verb whose only flag is --json. */
export interface JsonOption {
  json?: boolean;
}

/** The options of a verb on one thing named by its id (`show ID`, `revoke ID`). */
export interface IdOptions extends JsonOption {
  id: string;
}

/** What a verb shows in --help besides its flags: its name, one line, whether it prints data, its examples (at least one). */
export interface VerbHelp {
  name: string;
  description: string;
  /** Adds `--json` after the verb's own flags (where --help lists it). */
  json?: boolean;
  examples: [string, ...string[]];
}

/**
 * A verb's command under its group, declared in one call: name and description, its own
 * arguments and flags (`flags`), `--json` when it prints data, its examples; the caller adds
 * `.action`. The only way a verb is registered (groups and the root have no examples of
 * their own), so a verb cannot go without an example.
 */
export function defineVerb(group: Command, help: VerbHelp, flags: (command: Command) => Command = (command) => command): Command {
  const command = flags(group.command(help.name).description(help.description));
  if (help.json) withJson(command);
  withExamples(command, help.examples);
  return command;
}

/** `--json` on a command that prints data, after its own flags. */
function withJson(command: Command): Command {
  return command.option("--json", "print JSON instead of a table");
}

/** The example block at the end of a verb's --help. */
function withExamples(command: Command, lines: readonly string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`);
}

/** `--page N --limit N` of a list command, checked here (the API checks the ranges too). */
export function pageFlags(options: { page?: string; limit?: string }): { page: number | undefined; limit: number | undefined } {
  return { page: intFlag("--page", options.page, { min: 1 }), limit: intFlag("--limit", options.limit, { min: 1 }) };
}
