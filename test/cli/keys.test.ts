import { describe, expect, it } from "vitest";
import { parseToken } from "../../src/core/tokens.js";
import { runCli } from "../helpers/cli.js";
import { localCli } from "../helpers/local-cli.js";

describe("outreach keys", () => {
  it("create prints the raw key alone on stdout and the warning on stderr", async () => {
    const cli = await localCli();
    const res = await cli.run(["keys", "create", "--name", "Zapier", "--scope", "campaigns:trigger"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^otr_key_[0-9A-Za-z]{36}\n$/);
    expect(parseToken(res.stdout.trim())).toBe("key");
    expect(res.stderr).toContain("This is the only time the key is shown");
    expect(res.stderr).not.toContain(res.stdout.trim());
  });

  it("lists keys without the raw value, piped and on a terminal", async () => {
    const cli = await localCli();
    const raw = (await cli.run(["keys", "create", "--name", "Zapier"])).stdout.trim();
    const piped = await cli.run(["keys", "list"]);
    const [line] = piped.stdout.trim().split("\n");
    const cells = line!.split("\t");
    expect(cells.slice(1, 7)).toEqual(["Zapier", raw.slice(0, 12), "campaigns:trigger", "active", "never", "never"]);
    expect(piped.stdout).not.toContain(raw);
    const tty = await cli.run(["keys", "list"], true);
    expect(tty.stdout).toContain("LAST USED");
    expect(tty.stdout).not.toContain(raw);
  });

  it("rotate prints a new key once and the old one stops working; revoke; rotating a revoked key exits 5", async () => {
    const cli = await localCli();
    const created = JSON.parse((await cli.run(["keys", "create", "--name", "hook", "--json"])).stdout);
    const rotated = await cli.run(["keys", "rotate", created.apiKey.id]);
    expect(rotated.code).toBe(0);
    const newKey = rotated.stdout.trim();
    expect(parseToken(newKey)).toBe("key");
    expect(newKey).not.toBe(created.key);
    expect(rotated.stderr).toContain("only time the key is shown");

    const oldUse = await cli.run(["campaigns", "trigger", "cmp_unknown000000000", "--contact", "ct_x", "--api-key", created.key]);
    expect(oldUse.code).toBe(4);
    const newUse = await cli.run(["campaigns", "trigger", "cmp_unknown000000000", "--contact", "ct_x", "--api-key", newKey]);
    expect(newUse.code).toBe(3);

    const revoked = await cli.run(["keys", "revoke", created.apiKey.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain("revoked at");
    const again = await cli.run(["keys", "rotate", created.apiKey.id]);
    expect(again.code).toBe(5);
    expect(again.stdout).toBe("");
  });

  it("refuses an unknown scope (exit 2) naming the field", async () => {
    const cli = await localCli();
    const res = await cli.run(["keys", "create", "--name", "x", "--scope", "campaigns:delete"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--scope must be one of "campaigns:trigger"');
    expect(res.stdout).toBe("");
  });

  it("has --help with an example for every subcommand", async () => {
    for (const verb of ["list", "create", "rotate", "revoke"]) {
      const res = await runCli(["keys", verb, "--help"]);
      expect(res.code, verb).toBe(0);
      expect(res.stdout, verb).toMatch(/Examples:\n {2}\$ .*outreach keys/);
    }
  });
});
