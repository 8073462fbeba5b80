import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

describe("the data directory a user names", () => {
  it("a file is refused with one line and exit 2 (it was a raw EEXIST), also as a folder above the path", async () => {
    const file = join(tempDir(), "passwd");
    writeFileSync(file, "root:x:0:0::/root:/bin/sh\n");
    const direct = await runCli(["--data-dir", file, "whoami"], { env: cliEnv() });
    expect(direct.code).toBe(2);
    expect(direct.stderr).toBe(`error: --data-dir ${file} is a file, not a directory: name a directory (a new one is created if it does not exist)\n`);
    const below = await runCli(["admin", "users", "list"], { env: cliEnv({ OUTREACH_DATA_DIR: join(file, "data") }) });
    expect(below.code).toBe(2);
    expect(below.stderr).toBe(`error: OUTREACH_DATA_DIR ${join(file, "data")} cannot be created: ${file} is a file, not a directory\n`);
  });

  it("a folder of other files is refused and left as it was", async () => {
    const documents = tempDir();
    writeFileSync(join(documents, "thesis.odt"), "mine");
    const result = await runCli(["--data-dir", documents, "contacts", "list"], { env: cliEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --data-dir .* is not an outreach data directory \(it holds other files and no outreach\.db\)/);
    expect(readdirSync(documents)).toEqual(["thesis.odt"]);
  });

  it("a new data directory where the user named a path is announced loudly, naming the path and how to set it up; once", async () => {
    const env = cliEnv({ USER: "grace" });
    const typo = join(tempDir(), "outreach-dta");
    const first = await runCli(["--data-dir", typo, "whoami"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`^! creating a new data directory at ${typo} \\(--data-dir names no existing one; if you meant another, check the path\\)$`, "m"));
    expect(first.stderr).toMatch(/Run `outreach init`/);
    expect(existsSync(join(typo, "outreach.db"))).toBe(true);
    const again = await runCli(["--data-dir", typo, "whoami"], { env });
    expect(again.stderr).toBe("");

    const viaEnv = await runCli(["admin", "users", "list"], { env: cliEnv({ OUTREACH_DATA_DIR: join(tempDir(), "new") }) });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stderr).toMatch(/^! creating a new data directory at .*new \(OUTREACH_DATA_DIR names no existing one/m);
    // `init` is asked to make one: its own summary names the path.
    const init = await runCli(["--data-dir", join(tempDir(), "fresh"), "init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"], { env });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).not.toMatch(/creating a new data directory/);
    expect(init.stderr).toMatch(/^Initialised .*fresh: Ada/m);
  });

  it("the default data directory is initialised on first use with the usual note, not the warning", async () => {
    const result = await runCli(["whoami"], { env: cliEnv({ USER: "grace" }) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Initialised a new data directory/);
    expect(result.stderr).not.toMatch(/creating a new data directory/);
  });
});
