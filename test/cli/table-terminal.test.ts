import { afterEach, describe, expect, it } from "vitest";
import { builtBin } from "../helpers/built-bin.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { TmuxTerminal } from "../helpers/tmux.js";

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

describe("a table in a real 80-column terminal (tmux)", () => {
  it("reads the terminal's width, keeps ids and emails whole and cuts the long names", async () => {
    const dataDir = tempDir();
    const env = cliEnv();
    const cli = (...argv: string[]) => runCli(["--data-dir", dataDir, ...argv], { env });
    expect((await cli("init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme")).code).toBe(0);
    for (let i = 1; i <= 3; i++) {
      const name = `Zahnarztpraxis Dr. med. dent. Beatrice Frick-Oehri und Partner ${i}`;
      expect((await cli("contacts", "add", "--email", `praxis${i}@frick-dental.li`, "--name", name, "--tag", "dentist")).code).toBe(0);
    }
    const piped = (await cli("contacts", "list")).stdout.trim().split("\n").map((line) => line.split("\t"));

    terminal = new TmuxTerminal([process.execPath, await builtBin(), "--data-dir", dataDir, "contacts", "list"], { columns: 80, rows: 20, env });
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 0\]/);
    const lines = screen.split("\n").filter((line) => line.trim() && !line.startsWith("[exit"));
    expect(lines[0]).toMatch(/^ID +EMAIL +NAME +PHONE +STATUS +TAGS$/);
    // A joined line longer than 80 would be one the terminal wrapped.
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    for (const [id, email] of piped) expect(lines.some((line) => line.startsWith(`${id}  ${email}  Zahnarzt`) && line.includes("…"))).toBe(true);
  });
});
