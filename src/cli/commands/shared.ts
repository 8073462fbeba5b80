import { intFlag } from "../flags.js";
import type { Command } from "commander";

/** `--json` on a command that prints data. */
export function withJson(command: Command): Command {
  return command.option("--json", "print JSON instead of a table");
}

/** Attach an example block to a command's --help (every command has one). */
export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`);
}

/** `--page N --limit N` of a list command, checked here (the API checks the ranges too). */
export function pageFlags(options: { page?: string; limit?: string }): { page: number | undefined; limit: number | undefined } {
  return { page: intFlag("--page", options.page, { min: 1 }), limit: intFlag("--limit", options.limit, { min: 1 }) };
}
