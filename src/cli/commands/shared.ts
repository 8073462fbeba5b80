import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";

/** `--json` on a command that prints data. */
export function withJson(command: Command): Command {
  return command.option("--json", "print JSON instead of a table");
}

/** Attach an example block to a command's --help (every command has one). */
export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`);
}

/** A positive integer flag value, or `unlimited` → null. */
export function limitValue(flag: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "unlimited") return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0 or "unlimited" (got ${JSON.stringify(value)})`);
  return n;
}

export function requireFlags(values: Record<string, unknown>, names: Record<string, string>): void {
  const missing = Object.entries(names)
    .filter(([key]) => values[key] === undefined || values[key] === "")
    .map(([, flag]) => flag);
  if (missing.length) throw new UsageError(`missing ${missing.join(", ")}`);
}
