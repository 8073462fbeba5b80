import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { transformWithOxc } from "vite";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** `bin/outreach.js`: the launcher that runs the compiled CLI in dist/. */
export const BIN = join(ROOT, "bin", "outreach.js");
/** Written after a build that succeeded; dist/ is older than the sources when this is. */
const STAMP = join(ROOT, "dist", ".built");
const LOCK = join(ROOT, "dist", ".building");

function sources(dir = join(ROOT, "src")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.c?ts$/.test(e.name) ? [join(dir, e.name)] : []));
}

const newestInput = () => Math.max(...sources().map((file) => statSync(file).mtimeMs));

function stampTime(): number {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Every source file transpiled on its own to dist/ with vite's oxc transform (what `tsc`
 * emits, less the types: `verbatimModuleSyntax` makes each file stand alone, and the type
 * tests check the types). A fraction of a second, where tsc takes half a minute of the
 * test run's CPU.
 */
async function transpileToDist(): Promise<void> {
  // Declaration files (`src/types/`) describe packages: nothing to emit.
  for (const file of sources().filter((f) => !f.endsWith(".d.ts"))) {
    const { code } = await transformWithOxc(readFileSync(file, "utf8"), file, { lang: "ts", target: "es2022" });
    // `.cts` (a CommonJS file, the extraction workers' entry) becomes `.cjs`, as tsc emits it.
    const out = join(ROOT, "dist", relative(join(ROOT, "src"), file).replace(/\.ts$/, ".js").replace(/\.cts$/, ".cjs"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * For the tests that spawn `bin/` (the rest import the sources): write dist/ when a source
 * is newer than the last build, once even when several test files ask at the same time (a
 * lock directory; the others wait for it). `npm test` therefore builds only when such a
 * test runs, and only what changed since.
 */
export async function builtBin(): Promise<string> {
  for (;;) {
    if (stampTime() >= newestInput()) return BIN;
    mkdirSync(join(ROOT, "dist"), { recursive: true });
    try {
      mkdirSync(LOCK);
    } catch {
      // Another test process is building: wait for it, then look again (a lock left by a
      // killed run is taken over after five minutes).
      if (Date.now() - statSync(LOCK).mtimeMs > 300_000) rmSync(LOCK, { recursive: true, force: true });
      await sleep(200);
      continue;
    }
    try {
      await transpileToDist();
      writeFileSync(STAMP, new Date().toISOString() + "\n");
    } catch (err) {
      throw new Error(`could not build dist/ for the tests that run bin/outreach.js: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
