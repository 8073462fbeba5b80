import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.js";
import { builtBin } from "../helpers/built-bin.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { seeded } from "../helpers/seeded-random.js";

/**
 * Ctrl-C during `contacts import` and `contacts export`: the built CLI spawned on a local
 * data directory, a real SIGINT sent at a random moment of the work (seeded, so a failure
 * can be replayed), and the data directory checked against what the summary says.
 */

const ROWS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup() {
  const dataDir = tempDir();
  const env = { HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), OUTREACH_DATA_DIR: dataDir, OUTREACH_ENRICH: "0", NO_COLOR: "1" };
  const files = tempDir();
  const csv = join(files, "people.csv");
  writeFileSync(csv, ["email,name,tags", ...Array.from({ length: ROWS }, (_, i) => `p${i}@example.org,Person ${i},t${i % 7}`)].join("\n") + "\n");
  /** Contacts in the data directory, counted in its database (0 before the first write). */
  const stored = () => {
    const path = join(dataDir, "outreach.db");
    if (!existsSync(path)) return 0;
    const db = openDatabase(path);
    try {
      return (db.prepare("SELECT count(*) AS n FROM contacts").get() as { n: number }).n;
    } catch {
      return 0; // not migrated yet
    } finally {
      db.close();
    }
  };
  const cli = (args: string[]) => runCli(args, { env });
  return { dataDir, env, files, csv, stored, cli };
}

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From the SIGINT to the process's end. */
  stopMs: number;
}

/** Spawn the CLI, wait until `reached()` is true (a point of the work, however fast it runs), send SIGINT, collect the end. */
async function interruptWhen(bin: string, args: string[], env: NodeJS.ProcessEnv, reached: () => boolean): Promise<Interrupted> {
  const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  let ended = false;
  void closed.then(() => (ended = true));
  while (!ended && !reached()) await sleep(5);
  const sent = performance.now();
  child.kill("SIGINT");
  const end = await closed;
  return { ...end, stdout, stderr, stopMs: performance.now() - sent };
}

const SUMMARY = /interrupted after ([\d,]+) of ([\d,]+) rows: imported ([\d,]+) contacts?; ([\d,]+) duplicate, ([\d,]+) invalid, ([\d,]+) skipped \(no email\)\. Re-run the same command to import the rest: the rows already imported are then reported as duplicates, not imported twice\./;
const num = (s: string) => Number(s.replace(/,/g, ""));

/** From SIGINT to exit, over every run (printed, not asserted: tests assert behaviour, not timings). */
const stopTimes: number[] = [];
afterAll(() => {
  if (stopTimes.length) console.log(`SIGINT to exit: ${stopTimes.map((ms) => ms.toFixed(0)).join(", ")} ms`);
});

describe("Ctrl-C during contacts import and export (spawned, real SIGINT)", () => {
  it.each([11, 29, 4242])("seed %i: import stops with exit 130, the summary matches the data directory, a re-run completes it", async (seed) => {
    const random = seeded(seed);
    const bin = await builtBin();
    const { env, csv, stored, cli } = setup();
    expect((await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"])).code).toBe(0);

    // A random point of the import: once this many contacts are in.
    const target = 1 + Math.floor(random() * 0.7 * ROWS);
    const run = await interruptWhen(bin, ["contacts", "import", csv], env, () => stored() >= target);
    stopTimes.push(run.stopMs);
    expect(run.stderr).toMatch(SUMMARY);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).not.toMatch(/Error|at .*\.js:\d+/);
    // Not a terminal: no progress line, no escape codes.
    expect(run.stderr).not.toMatch(/rows ·|\u001b\[/);
    const [, done, total, created, duplicates] = SUMMARY.exec(run.stderr)!;
    expect(num(total!)).toBe(ROWS);
    expect(num(duplicates!)).toBe(0);
    expect(num(done!)).toBeLessThan(ROWS);
    expect(num(created!)).toBe(num(done!));
    // What the summary says is what the data directory holds, every contact whole: its
    // fields decrypt to the row's, and its email's substring index finds it.
    expect(stored()).toBe(num(created!));
    const listed = JSON.parse((await cli(["contacts", "list", "--all", "--json"])).stdout).contacts as Array<{ email: string; name: string; tags: string[] }>;
    expect(listed).toHaveLength(num(created!));
    for (const c of listed) {
      const i = Number(/^p(\d+)@example\.org$/.exec(c.email)![1]);
      expect(c).toMatchObject({ name: `Person ${i}`, tags: [`t${i % 7}`] });
    }
    const newest = listed[0]!;
    const found = JSON.parse((await cli(["contacts", "list", "--search", newest.email.slice(0, -4), "--json"])).stdout).contacts;
    expect(found.map((c: { email: string }) => c.email)).toContain(newest.email);

    // What the summary promises for a re-run: the rest imported, the rows already in reported as duplicates.
    const again = await cli(["contacts", "import", csv]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`imported ${(ROWS - num(created!)).toLocaleString("en")} contacts; ${num(created!).toLocaleString("en")} duplicate, 0 invalid`);
    expect(stored()).toBe(ROWS);

    // Export of the same directory, interrupted at a random point of writing its --out file
    // (a contact's CSV row is over 100 bytes: ids and two timestamps alone are 70).
    const out = join(tempDir(), "contacts.csv");
    const folder = join(out, "..");
    const bytes = 100 * (1 + Math.floor(random() * 0.6 * ROWS));
    const written = () => readdirSync(folder).some((f) => statSync(join(folder, f)).size >= bytes);
    const exported = await interruptWhen(bin, ["contacts", "export", "--out", out], env, written);
    stopTimes.push(exported.stopMs);
    expect(exported.code, exported.stderr).toBe(130);
    expect(exported.stderr).toMatch(new RegExp(`^interrupted after [\\d,]+ of 3,000 contacts: ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} was not written\\ninterrupted\\n$`));
    expect(readdirSync(folder)).toEqual([]);
  }, 240_000);

  it("on a terminal (a real pseudo-terminal): progress with the rate and the time left, and a typed Ctrl-C stops it with exit 130", async () => {
    const bin = await builtBin();
    const { env, csv, stored, cli } = setup();
    expect((await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"])).code).toBe(0);
    // `script` runs the command on a new pseudo-terminal; what is written to its stdin is typed there.
    const command = `stty cols 100 rows 30; exec ${process.execPath} ${bin} contacts import ${csv}`;
    const child = spawn("script", ["-qec", command, "/dev/null"], { env: { PATH: process.env.PATH, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    child.stdout.on("data", (d) => (screen = (screen + d).slice(-200_000)));
    const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const watchdog = setTimeout(() => child.kill("SIGKILL"), 120_000);
    let ended = false;
    void closed.then(() => (ended = true));
    while (!ended && stored() < ROWS / 3) await sleep(5);
    child.stdin.write("\u0003");
    const code = await closed;
    clearTimeout(watchdog);
    expect(screen).toMatch(/[\d,]+ of 3,000 rows · [\d,]+\/s · about \d+ (s|min \d+ s) left/);
    expect(screen).toMatch(SUMMARY);
    expect(code, screen.slice(-2000)).toBe(130);
    expect(stored()).toBe(num(SUMMARY.exec(screen)![3]!));
  }, 240_000);
});
