import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { durationText, rateLine } from "../../src/cli/rate-progress.js";
import { nextChunkSize } from "../../src/cli/contact-import-run.js";

describe("contacts import and export progress", () => {
  it("draws rows, rate and time left on a terminal's stderr, and nothing when piped", async () => {
    const dataDir = tempDir();
    const env = cliEnv();
    const cli = (args: string[], tty: boolean, stdin?: string) => runCli(["--data-dir", dataDir, ...args], { env, tty, stdin });
    expect((await cli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"], false)).code).toBe(0);
    const csv = ["email,name", ...Array.from({ length: 120 }, (_, i) => `p${i}@example.org,P ${i}`)].join("\n");

    const imported = await cli(["contacts", "import", "-"], true, csv);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(/\d+ of 120 rows/);
    expect(imported.stderr).toContain("imported 120 contacts; 0 duplicate, 0 invalid");
    const piped = await cli(["contacts", "import", "-"], false, csv);
    expect(piped.stderr).not.toMatch(/ of 120 rows|\u001b\[/);
    // Per-row lines go above the progress line, each whole on a line of its own: what a
    // terminal shows of a line is what follows its last "clear line" (ESC [2K).
    const again = await cli(["contacts", "import", "-"], true, csv);
    const lines = again.stderr.split("\n").map((line) => line.replace(/^.*\u001b\[2K/s, ""));
    for (const i of [0, 57, 119]) expect(lines).toContain(`row ${i + 2}: duplicate: a contact with email p${i}@example.org already exists in this workspace`);

    const exported = await cli(["contacts", "export", "--ndjson"], true);
    expect(exported.stdout.trim().split("\n")).toHaveLength(120);
    expect(exported.stderr).toMatch(/\d+ of 120 contacts/);
    expect(exported.stderr).toContain("exported 120 contacts");
    expect((await cli(["contacts", "export", "--ndjson"], false)).stderr).toBe("exported 120 contacts\n");
  });

  it("says the rate and the time left as people do", () => {
    expect(rateLine("rows", 12_000, 50_000, 4)).toBe("12,000 of 50,000 rows · 3,000/s · about 13 s left");
    expect(rateLine("contacts", 500, undefined, 2)).toBe("500 contacts · 250/s");
    expect(rateLine("rows", 0, 10, 0)).toBe("0 of 10 rows");
    expect(durationText(200)).toBe("3 min 20 s");
    expect(durationText(3900)).toBe("1 h 5 min");
  });

  it("sizes the next chunk to about a quarter of a second, growing at most fourfold, within --batch-size", () => {
    expect(nextChunkSize(25, 50, 500)).toBe(100); // would fit 125, grows at most 4×
    expect(nextChunkSize(100, 1000, 500)).toBe(25); // slow: shrinks to fit
    expect(nextChunkSize(400, 10, 500)).toBe(500); // fast: capped by --batch-size
    expect(nextChunkSize(1, 5000, 500)).toBe(1);
  });
});
