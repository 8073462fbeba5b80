import { Command } from "commander";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { defineVerb } from "../../src/cli/commands/shared.js";
import { runCli } from "../helpers/cli.js";

/** The help a verb prints, without running the program. */
function helpOf(command: Command): string {
  let text = "";
  command.configureOutput({ writeOut: (s) => (text += s) });
  command.outputHelp();
  return text;
}

describe("defineVerb: a verb declared in one call", () => {
  it("has its name, description, own flags, --json after them and its examples in --help", () => {
    const group = new Command("things");
    const verb = defineVerb(group, { name: "add", description: "add a thing", json: true, examples: ["outreach things add --name A", "outreach things add --name B --json"] }, (command) =>
      command.argument("<kind>", "what kind").requiredOption("--name <name>", "its name"),
    );
    expect(group.commands).toEqual([verb]);
    const help = helpOf(verb);
    expect(help).toContain("add a thing");
    expect(help).toMatch(/--name <name>\s+its name\n\s+--json\s+print JSON instead of a table/);
    expect(help).toContain("Examples:\n  $ outreach things add --name A\n  $ outreach things add --name B --json\n");
  });

  it("adds no --json unless asked, and hands the parsed arguments to the action", async () => {
    const group = new Command("things").exitOverride();
    let seen: unknown;
    defineVerb(group, { name: "rm", description: "remove a thing", examples: ["outreach things rm t_1"] }, (command) => command.argument("<id>", "thing id")).action(
      (id: string, options: object) => {
        seen = { id, options };
      },
    );
    expect(helpOf(group.commands[0]!)).not.toContain("--json");
    await group.parseAsync(["rm", "t_1"], { from: "user" });
    expect(seen).toEqual({ id: "t_1", options: {} });
  });
});

/** Every .ts file under src/cli. */
function cliSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? cliSources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** What is chained onto a call: `x.command("a").option(…).action(…)` → ["option", "action"]. */
function chainedMethods(call: ts.CallExpression): string[] {
  const names: string[] = [];
  for (let node: ts.Node = call; ts.isPropertyAccessExpression(node.parent) && ts.isCallExpression(node.parent.parent); node = node.parent.parent) {
    names.push(node.parent.name.text);
  }
  return names;
}

/** Whatever declares a verb's arguments, flags, help text or action. */
const VERB_METHODS = new Set(["action", "option", "requiredOption", "addOption", "argument", "addArgument", "addHelpText"]);

describe("one way to register a verb (docs/architecture.md, Conventions)", () => {
  const CLI = resolve(fileURLToPath(new URL("../../src/cli", import.meta.url)));
  const SHARED = join(CLI, "commands", "shared.ts");

  it("outside defineVerb, .command() only makes groups: nothing declares a verb's flags, help or action on it", () => {
    const verbsElsewhere: string[] = [];
    for (const file of cliSources(CLI).filter((f) => f !== SHARED)) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "command") {
          const declared = chainedMethods(node).filter((name) => VERB_METHODS.has(name));
          if (declared.length) verbsElsewhere.push(`${relative(CLI, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} .${declared.join("(), .")}()`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(verbsElsewhere).toEqual([]);
  });

  it("every command without sub-commands has examples in its --help", async () => {
    const missing: string[] = [];
    const walk = async (path: string[]): Promise<void> => {
      const help = (await runCli([...path, "--help"])).stdout;
      const subcommands = [...(help.split(/^Commands:\n/m)[1] ?? "").matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((name) => name !== "help");
      if (subcommands.length === 0 && !/\nExamples:\n  \$ \S/.test(help)) missing.push(path.join(" "));
      for (const name of subcommands) await walk([...path, name]);
    };
    await walk([]);
    expect(missing).toEqual([]);
  });
});
