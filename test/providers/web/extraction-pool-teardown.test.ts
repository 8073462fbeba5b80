import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { builtBin } from "../../helpers/built-bin.js";
import { tempDir } from "../../helpers/data-dir.js";
import { runToEnd } from "../../helpers/serve-bin.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CHILD = join(ROOT, "test", "helpers", "pool-teardown-child.mjs");

/**
 * An ES module graph whose linking takes long enough to be hit: 300 modules of 40 exports,
 * all imported by name from `root.js` (whose default export answers a task).
 */
function wideModuleGraph(): string {
  const dir = tempDir();
  writeFileSync(join(dir, "package.json"), '{"type":"module"}\n');
  const names = (i: number) => Array.from({ length: 40 }, (_, j) => `v${i}_${j}`);
  for (let i = 0; i < 300; i++) writeFileSync(join(dir, `m${i}.js`), names(i).map((n, j) => `export const ${n} = ${j};\n`).join(""));
  const imports = Array.from({ length: 300 }, (_, i) => `import { ${names(i).join(", ")} } from "./m${i}.js";\n`).join("");
  writeFileSync(join(dir, "root.js"), `${imports}export default function answer() { return { v: v0_0 }; }\n`);
  return join(dir, "root.js");
}

describe("the extraction pool torn down while its workers start", () => {
  // Issue 29: piscina require()d the worker's ES module, and a worker terminated while Node
  // linked it aborted the process (exit 134, FATAL ERROR: v8::Module::IsGraphAsync). With
  // piscina given the module directly, about one child in two of these aborted.
  it("never aborts the process: 4 seeds × 80 pools destroyed at random moments of their start-up", async () => {
    await builtBin();
    const pool = join(ROOT, "dist", "providers", "web", "extraction-pool.js");
    const root = wideModuleGraph();
    const results = await Promise.all([1, 2, 3, 4].map((seed) => runToEnd(process.execPath, [CHILD, pool, root, "80", String(seed)], {})));
    for (const r of results) {
      expect(r.stderr).not.toMatch(/FATAL|Assertion failed/);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^survived 80/);
    }
  }, 240_000);
});
