#!/usr/bin/env node
// Runs every benchmark script in this folder, one after another (they measure time, so
// never in parallel), and prints each one's table. `npm run bench` builds first.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((f) => /\.(m?js)$/.test(f) && f !== "run-all.js" && !f.startsWith("_"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n=== ${script}\n`);
  const started = performance.now();
  const result = spawnSync(process.execPath, [join(here, script)], { stdio: "inherit" });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failed++;
    process.stdout.write(`--- ${script} failed (exit ${result.status}) after ${seconds} s\n`);
  } else {
    process.stdout.write(`--- ${script} done in ${seconds} s\n`);
  }
}
process.exitCode = failed ? 1 : 0;
