import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(fileURLToPath(new URL("../../src", import.meta.url)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** Every import and re-export of a file, type-only ones included (they tie files together just the same). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]!);
}

const files = sourceFiles(SRC);
/** src-relative file → src-relative files it imports, and the packages it imports. */
const graph = new Map(
  files.map((file) => {
    const specs = importsOf(file);
    const local = specs.filter((s) => s.startsWith(".")).map((s) => relative(SRC, resolve(dirname(file), s.replace(/\.js$/, ".ts"))));
    const packages = specs.filter((s) => !s.startsWith(".")).map((s) => s.split("/").slice(0, s.startsWith("@") ? 2 : 1).join("/"));
    return [relative(SRC, file), { local, packages }] as const;
  }),
);
const layer = (file: string) => file.split("/")[0]!;

describe("the layout's dependency rules (docs/architecture.md)", () => {
  it("has no import cycles, type-only imports included", () => {
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" → "));
        return;
      }
      state.set(file, "open");
      for (const next of graph.get(file)?.local ?? []) visit(next, [...path, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it("keeps each layer to what it may import", () => {
    const allowed: Record<string, string[]> = {
      core: ["core"],
      store: ["core", "store"],
      providers: ["core", "providers"],
      places: ["core", "store", "providers", "places"],
      services: ["core", "store", "providers", "places", "services"],
      server: ["core", "services", "server"],
      client: ["core", "client"],
      cli: ["core", "client", "cli", "server", "services", "store", "providers", "places"],
      types: [],
    };
    const wrong = [...graph].flatMap(([file, { local }]) => local.filter((to) => !allowed[layer(file)]!.includes(layer(to))).map((to) => `${file} → ${to}`));
    expect(wrong).toEqual([]);
  });

  it("lets the rest reach the places engine only through its door, src/places/index.ts", () => {
    const wrong = [...graph]
      .filter(([file]) => layer(file) !== "places")
      .flatMap(([file, { local }]) => local.filter((to) => layer(to) === "places" && to !== "places/index.ts").map((to) => `${file} → ${to}`));
    expect(wrong).toEqual([]);
  });

  it("keeps the places index's tables (places/store) below the search: it imports nothing else of the engine", () => {
    const wrong = [...graph]
      .filter(([file]) => file.startsWith("places/store/"))
      .flatMap(([file, { local }]) => local.filter((to) => layer(to) === "places" && !to.startsWith("places/store/")).map((to) => `${file} → ${to}`));
    expect(wrong).toEqual([]);
  });

  it("imports h3 only in the server and the terminal libraries only in the CLI", () => {
    const only: Record<string, string> = { h3: "server", commander: "cli", "@inquirer/prompts": "cli", ora: "cli", "cli-table3": "cli" };
    const wrong = [...graph].flatMap(([file, { packages }]) => packages.filter((p) => only[p] && only[p] !== layer(file)).map((p) => `${file} imports ${p}`));
    expect(wrong).toEqual([]);
  });

  it("lets the CLI reach the data directory only from the operator commands and the local transport", () => {
    // A group's verbs live in its folder (cli/commands/admin/users-create.ts): they are operator commands too.
    const operator = ["cli/commands/init.ts", "cli/commands/admin.ts", "cli/commands/places.ts", "cli/commands/serve.ts", "cli/commands/deliver.ts", "cli/commands/replies.ts", "cli/context.ts"];
    const isOperator = (file: string) => operator.some((o) => file === o || (o.startsWith("cli/commands/") && file.startsWith(o.replace(/\.ts$/, "/"))));
    const wrong = [...graph]
      .filter(([file]) => layer(file) === "cli" && !isOperator(file))
      .flatMap(([file, { local }]) => local.filter((to) => ["services", "store", "providers", "places", "server"].includes(layer(to))).map((to) => `${file} → ${to}`));
    expect(wrong).toEqual([]);
  });
});
