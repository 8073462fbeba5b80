import type { Command } from "commander";
import { editDistance } from "../core/text.js";

/**
 * The API names fields as its JSON does (`radiusKm`, `scopes[0]`, `websiteUrl`); the user
 * typed flags (`--radius`, `--scope`, `--website`). A 400's message is told back in the
 * flags of the command that sent it: each option's attribute name maps to its flag
 * (`senderEmail` → `--sender-email`), and a command whose body field is named otherwise
 * declares the difference with `apiFields`.
 */
const declared = new WeakMap<Command, Record<string, string>>();

/** Declare which flag sets a body field of another name: `apiFields(cmd, { radiusKm: "--radius" })`. */
export function apiFields(command: Command, fieldToFlag: Record<string, string>): Command {
  declared.set(command, { ...declared.get(command), ...fieldToFlag });
  return command;
}

/**
 * API fields set by a flag of another name wherever that flag is: a command with the flag
 * gets the mapping without declaring it (`--body-file` sends `bodyMarkdown`, `--source`
 * sends `sources`).
 */
const FIELD_OF_FLAG: Record<string, string> = { "--body-file": "bodyMarkdown", "--source": "sources" };

function fieldFlags(command: Command): Map<string, string> {
  const map = new Map<string, string>();
  for (const option of command.options) {
    if (!option.long) continue;
    map.set(option.attributeName(), option.long);
    const field = FIELD_OF_FLAG[option.long];
    if (field) map.set(field, option.long);
  }
  for (const [field, flag] of Object.entries(declared.get(command) ?? {})) map.set(field, flag);
  return map;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `invalid body: radiusKm must be an integer; scopes[0] must be one of …` →
 * `--radius must be an integer; --scope must be one of …`. Only whole field names at the
 * start of a clause are replaced; a message naming no field of the command is unchanged.
 */
export function inFlagLanguage(message: string, command: Command | undefined): string {
  if (!command) return message;
  const flags = fieldFlags(command);
  if (flags.size === 0) return message;
  const names = [...flags.keys()].sort((a, b) => b.length - a.length).map(escape).join("|");
  const clause = new RegExp(`(^|: |; )(${names})(?:\\[\\d+\\])?(?=[ :;]|$)`, "g");
  let replaced = false;
  const out = message.replace(clause, (_m, lead: string, field: string) => {
    replaced = true;
    return `${lead}${flags.get(field)}`;
  });
  return replaced ? out.replace(/^invalid (body|query): /, "") : message;
}

/** The command `argv` names (deepest match), e.g. `leads search` for `leads search --x`. */
export function commandOf(program: Command, argv: readonly string[]): Command {
  let command = program;
  for (const token of argv) {
    if (token.startsWith("-")) continue;
    const sub = command.commands.find((c) => c.name() === token || c.aliases().includes(token));
    if (!sub) break;
    command = sub;
  }
  return command;
}

/**
 * Flags in `argv` that `command` does not know, each with the nearest flag it does
 * (`--keyword` → `--keywords`). commander suggests these itself, except when a required
 * option is missing, which it reports first: `--keyword cafe` only said "required option
 * '--keywords' not specified".
 */
export function misspelledFlags(command: Command, argv: readonly string[]): Array<{ typed: string; suggestion: string }> {
  const known: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) for (const o of c.options) if (o.long) known.push(o.long);
  const out: Array<{ typed: string; suggestion: string }> = [];
  for (const token of argv) {
    if (!token.startsWith("--")) continue;
    const typed = token.split("=")[0]!;
    if (known.includes(typed) || typed === "--help") continue;
    const best = known
      .map((flag) => ({ flag, distance: editDistance(typed, flag) }))
      .filter((c) => c.distance <= Math.max(2, Math.floor(typed.length / 4)))
      .sort((a, b) => a.distance - b.distance)[0];
    if (best) out.push({ typed, suggestion: best.flag });
  }
  return out;
}
