import { spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { builtBin } from "../helpers/built-bin.js";
import { localCli } from "../helpers/local-cli.js";
import { HAS_SHARED_DATA, liechtensteinPbf, SHARED_DATA_MISSING } from "../helpers/places-data.js";
import { seeded } from "../helpers/seeded-random.js";

/**
 * Ctrl-C at a terminal during `places import FILE --replace` over an earlier import of the
 * same file: the real CLI in a real pseudo-terminal (`script`), the ^C typed into it (the
 * terminal sends SIGINT to the command). Whenever it comes, the command exits 130 with one
 * line left on the terminal, and the region is as before: complete, the same leads.
 *
 * The test holds the database's write lock from the moment progress shows until just after
 * the ^C: the import cannot finish first (it stages the file without the lock, then waits
 * for it to swap), so every ^C lands while it reads or while it waits at the swap, which
 * it then completes (the same places: the same leads) and stops as the packing begins.
 */

const SEARCHES = [
  ["restaurant", "Vaduz"],
  ["hotel", "Schaan"],
  ["bank", "Vaduz"],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Interrupted {
  code: number | null;
  /** What the terminal showed, escape sequences and all. */
  screen: string;
}

/**
 * Run the import in a pseudo-terminal; once its progress shows, take the write lock; once
 * `moment` is on the screen, wait `delayMs`, type ^C, and release the lock shortly after
 * (well within the import's 5 s busy timeout).
 */
async function importInterrupted(bin: string, env: NodeJS.ProcessEnv, dbFile: string, moment: RegExp, delayMs: number): Promise<Interrupted> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} places import ${JSON.stringify(liechtensteinPbf())} --replace >/dev/null`;
  const child = spawn("script", ["-qefc", command, "/dev/null"], { env: { ...env, TERM: "xterm", COLUMNS: "120" }, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const lock = new Database(dbFile, { timeout: 10_000 });
  try {
    await new Promise<void>((resolve, reject) => {
      let reached = false;
      let locked = false;
      child.stdout.on("data", (chunk: Buffer) => {
        screen += chunk.toString("utf8");
        if (!locked && /places at/.test(screen)) {
          locked = true;
          lock.prepare("BEGIN IMMEDIATE").run();
        }
        if (reached || !lock.inTransaction || !moment.test(screen)) return;
        reached = true;
        resolve();
      });
      void exited.then(() => reject(new Error(`the import ended before ${moment} showed:\n${screen}`)));
    });
    await sleep(delayMs);
    child.stdin.write("\x03");
    await sleep(300);
  } finally {
    if (lock.inTransaction) lock.prepare("COMMIT").run();
    lock.close();
  }
  const code = await exited;
  child.stdin.end();
  return { code, screen };
}

/** What the terminal shows at the end: whatever came after the spinner's last erase, the ^C's echo left out. */
function lastLines(screen: string): string {
  const afterErase = screen.slice(screen.lastIndexOf("\u001b[2K") + "\u001b[2K".length);
  return afterErase.replace(/\^C/g, "").trim();
}

describe.skipIf(!HAS_SHARED_DATA)(`Ctrl-C during places import --replace${SHARED_DATA_MISSING}`, () => {
  it("leaves the region complete with the same leads, exits 130 with one line, at random moments and at the swap", async () => {
    const bin = await builtBin();
    const cli = await localCli();
    const dbFile = join(cli.dataDir, "outreach.db");
    expect((await cli.run(["places", "import", liechtensteinPbf()])).code).toBe(0);
    const search = async () => {
      const out: unknown[] = [];
      for (const [keywords, location] of SEARCHES) {
        const result = await cli.run(["leads", "search", "--keywords", keywords!, "--location", location!, "--json"]);
        expect(result.code).toBe(0);
        out.push((JSON.parse(result.stdout) as { leads: unknown[] }).leads);
      }
      return out;
    };
    const before = await search();
    expect((before[0] as unknown[]).length).toBeGreaterThan(5);

    // Random moments once the reading shows progress (three seeds), then one at the swap.
    const moments: Array<{ moment: RegExp; delayMs: number }> = [7, 29, 113].map((seed) => ({ moment: /places at/, delayMs: Math.floor(seeded(seed)() * 1500) }));
    moments.push({ moment: /replacing the earlier import/, delayMs: 0 });
    for (const { moment, delayMs } of moments) {
      const { code, screen } = await importInterrupted(bin, cli.env, dbFile, moment, delayMs);
      const plain = screen.replace(/\u001b\[[0-9;?]*[a-zA-Z]/g, "").replace(/\r/g, "\n");
      expect({ code, last: lastLines(screen), delayMs, moment: String(moment), screen: plain }).toMatchObject({ code: 130, last: "interrupted" });
      const stats = await cli.run(["places", "stats", "--json"]);
      const [source] = (JSON.parse(stats.stdout) as { sources: Array<{ status: string; places: number }> }).sources;
      expect(source).toMatchObject({ status: "complete" });
      expect(stats.stdout + stats.stderr).not.toMatch(/failed|partial/);
      expect(await search()).toEqual(before);
    }
  }, 180_000);
});
