import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

/** The prefixes of our ids (src/core/ids.ts) and of our tokens and keys (`otr_pat_…`, `otr_key_…`). */
const ID_PREFIXES = ["usr", "team", "tok", "ct", "cmp", "exe", "dom", "key", "imp", "srch", "rt", "sup", "req", "otr"];

/** Every command's path, read from the help of its parent (`Commands:` section). */
async function commandPaths(path: string[] = []): Promise<string[][]> {
  const help = await runCli([...path, "--help"]);
  const section = help.stdout.split(/^Commands:\n/m)[1] ?? "";
  const names = [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((name) => name !== "help");
  const children = await Promise.all(names.map((name) => commandPaths([...path, name])));
  return [path, ...children.flat()];
}

describe("help examples", () => {
  it("show ids with the prefixes ids really have (dom_…, not sd_…)", async () => {
    const paths = await commandPaths();
    expect(paths.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const path of paths) {
      const help = (await runCli([...path, "--help"])).stdout;
      const examples = help.split(/^Examples:\n/m)[1] ?? "";
      for (const match of examples.matchAll(/(?<![\w/.-])([a-z]+)_[0-9A-Za-z]{3,}/g)) {
        if (!ID_PREFIXES.includes(match[1]!)) wrong.push(`outreach ${path.join(" ")}: ${match[0]}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
