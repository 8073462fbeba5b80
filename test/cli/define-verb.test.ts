import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { defineVerb } from "../../src/cli/commands/shared.js";

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
