import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { builtBin } from "../helpers/built-bin.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { TmuxTerminal } from "../helpers/tmux.js";

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

/** The line of the screen that asks `question` (the prompt marks an open question with "?"). */
const asking = (question: string) => new RegExp(`^\\? ${question}`, "m");

describe("interactive `outreach init` in a real 80×40 terminal (tmux)", () => {
  it("shows every question when it is asked, asks again after a bad email, and initialises the data directory", async () => {
    const env = cliEnv();
    const dataDir = join(tempDir(), "data");
    terminal = new TmuxTerminal([process.execPath, await builtBin(), "--data-dir", dataDir, "init"], { columns: 80, rows: 40, env });

    await terminal.waitFor(asking("Your name"));
    terminal.type("Ada Lovelace", "Enter");
    // The second and third questions used to be typed blind: the screen kept only the first.
    await terminal.waitFor(asking("Your email"));
    terminal.type("ada-at-example.com", "Enter");
    const refused = await terminal.waitFor(/not a valid email address/);
    expect(refused).toMatch(asking("Your email"));
    expect(refused).not.toMatch(/\[exit \d+\]/);
    terminal.type("C-u", "ada@example.com", "Enter");
    await terminal.waitFor(asking("Workspace name"));
    terminal.type("Analytical Engines", "Enter");
    const done = await terminal.waitFor(/\[exit \d+\]/);
    expect(done).toMatch(/\[exit 0\]/);
    expect(done).toMatch(/✔ Your name Ada Lovelace/);
    expect(done).toMatch(/✔ Your email ada@example\.com/);
    expect(done).toMatch(/Ada Lovelace <ada@example\.com> owns workspace "Analytical Engines"/);

    const users = await runCli(["--data-dir", dataDir, "admin", "users", "list"], { env });
    expect(users.code, users.stderr).toBe(0);
    expect(users.stdout).toMatch(/^ada@example\.com\tAda Lovelace\t/m);
    const teams = await runCli(["--data-dir", dataDir, "teams", "list"], { env });
    expect(teams.stdout).toMatch(/Analytical Engines/);
  });
});
