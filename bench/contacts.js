// Contacts at scale, before/after in one run: this checkout's build (`dist/`) against a
// baseline commit's (default: the last one with migration 012's row-per-posting gram
// index), each importing the same N contacts through addMany (batches of 500) into a new
// data directory, then searching: contacts imported per second, bytes on disk per contact,
// p50/p95 of list pages and searches. Runs alternate (baseline, current, …); medians of
// `--runs`. Then the upgrade: a data directory written by the baseline is opened by this
// build (migration 023 converts its grams; timed) and every query must give the same
// totals and first pages as the baseline gave on it.
//
//   npm run build && node bench/contacts.js                        (200,000 contacts, 3 runs each)
//   node bench/contacts.js --contacts 20000 --runs 3 --queries 100
//   node bench/contacts.js --baseline-ref <commit>                   (another baseline)
//
// The baseline is built in a temporary git worktree (tsc, node_modules linked), removed
// afterwards. Each measurement is its own process (bench/_contacts-run.js). Figures depend
// on the machine and its load (printed before and after): compare columns of one run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const N = Number(arg("contacts", process.env.CONTACTS ?? 200_000));
const RUNS = Number(arg("runs", 3));
const QUERIES = Number(arg("queries", 100));
const BASELINE_REF = arg("baseline-ref", "375fdf2");
if (!(N >= 50) || !(RUNS >= 1) || !(QUERIES >= 1)) throw new Error("--contacts must be at least 50, --runs and --queries at least 1");

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runner = join(repo, "bench/_contacts-run.js");
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const run = (dist, extra = []) =>
  JSON.parse(execFileSync(process.execPath, [runner, "--dist", dist, "--contacts", String(N), "--queries", String(QUERIES), ...extra], { encoding: "utf8", maxBuffer: 1 << 28 }).trim().split("\n").pop());

console.log(`load average before: ${load()}`);
const baseTree = mkdtempSync(join(tmpdir(), "outreach-bench-baseline-"));
const keepDir = mkdtempSync(join(tmpdir(), "outreach-bench-upgrade-"));
try {
  execFileSync("git", ["-C", repo, "worktree", "add", "--detach", baseTree, BASELINE_REF], { stdio: "ignore" });
  symlinkSync(join(repo, "node_modules"), join(baseTree, "node_modules"));
  execFileSync(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", join(baseTree, "tsconfig.json")], { stdio: "inherit" });
  const baseDist = join(baseTree, "dist");
  const currentDist = join(repo, "dist");

  const runs = { baseline: [], current: [] };
  for (let i = 0; i < RUNS; i++) {
    // The baseline's last run keeps its data directory for the upgrade below.
    runs.baseline.push(run(baseDist, i === RUNS - 1 ? ["--keep", keepDir] : []));
    runs.current.push(run(currentDist));
    console.log(`run ${i + 1}/${RUNS} done (load ${load()})`);
  }
  const upgraded = run(currentDist, ["--reuse", keepDir]);

  const rows = [
    ["contacts imported per second", (r) => r.importPerS, 0, "higher"],
    ["contacts imported per CPU second", (r) => r.importPerCpuS, 0, "higher"],
    ["bytes on disk per contact", (r) => r.bytesPerContact, 0, "lower"],
  ];
  for (const name of Object.keys(runs.current[0].search)) {
    rows.push([`${name}: p50 ms`, (r) => r.search[name].p50, 2, "lower"]);
    rows.push([`${name}: p95 ms`, (r) => r.search[name].p95, 2, "lower"]);
  }
  console.log(`\ncontacts: ${N.toLocaleString("en")} in one workspace; medians of ${RUNS} runs each; ${QUERIES} queries per search row; baseline ${BASELINE_REF}\n`);
  const table = rows.map(([name, f, digits, better]) => {
    const b = median(runs.baseline.map(f));
    const c = median(runs.current.map(f));
    return [name, b.toFixed(digits), c.toFixed(digits), `${(better === "higher" ? c / b : b / c).toFixed(2)}x`];
  });
  const header = ["", "baseline", "current", "better by"];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const line = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  console.log(line(header));
  for (const r of table) console.log(line(r));

  const before = runs.baseline[RUNS - 1].answers;
  const differing = before.filter(([search, total, page], i) => JSON.stringify([search, total, page]) !== JSON.stringify(upgraded.answers[i]));
  console.log(
    `\nupgrade of the baseline's data directory: opened (migrations) in ${upgraded.openS.toFixed(1)} s, ${upgraded.bytesPerContact.toFixed(0)} bytes per contact after (${upgraded.usedBytesPerContact.toFixed(0)} in use, the rest free pages until a VACUUM); ` +
      `${before.length - differing.length} of ${before.length} queries answer as before${differing.length ? `; DIFFERENT: ${JSON.stringify(differing.slice(0, 3))}` : ""}`,
  );
  const imp = median(runs.current.map((r) => r.importPerS));
  const bytes = median(runs.current.map((r) => r.bytesPerContact));
  const p95Worse = Object.keys(runs.current[0].search).filter((name) => median(runs.current.map((r) => r.search[name].p95)) > median(runs.baseline.map((r) => r.search[name].p95)));
  console.log(`\nTargets at ${N.toLocaleString("en")} contacts: import ≥ 3,000/s ${imp >= 3000 ? "met" : "NOT met"} (${imp.toFixed(0)}); ≤ 2 KB per contact ${bytes <= 2048 ? "met" : "NOT met"} (${bytes.toFixed(0)} B); search p95 no worse ${p95Worse.length ? `NOT met for: ${p95Worse.join("; ")}` : "met"}`);
} finally {
  console.log(`load average after: ${load()}`);
  try {
    execFileSync("git", ["-C", repo, "worktree", "remove", "--force", baseTree], { stdio: "ignore" });
  } catch {
    rmSync(baseTree, { recursive: true, force: true });
  }
  rmSync(keepDir, { recursive: true, force: true });
}
