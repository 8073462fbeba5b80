import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { localCli } from "../helpers/local-cli.js";

describe("outreach brand", () => {
  it("sets fields from flags and shows them, piped", async () => {
    const cli = await localCli();
    const set = await cli.run(["brand", "set", "--name", "Acme Dental", "--email", "hello@acme.example", "--language", "de-ch", "--postal-address", "12 Main Street\\nSpringfield"]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("name\tAcme Dental\n");
    expect(set.stdout).toContain("language\tde-CH\n");
    const show = await cli.run(["brand", "show"]);
    expect(show.stdout).toBe(
      "name\tAcme Dental\ndescription\t\nemail\thello@acme.example\nwebsite\t\nlanguage\tde-CH\nlogo\t\ndesign system\t(empty)\npostal address\t12 Main Street, Springfield\ntime zone\tUTC\n",
    );
  });

  it("reads --design-system from a JSON file and prints the style guide with --markdown", async () => {
    const cli = await localCli();
    const file = join(tempDir(), "brand.json");
    writeFileSync(file, JSON.stringify({ colors: { primary: "#ff0000" }, voice: "friendly" }));
    const res = await cli.run(["brand", "set", "--name", "Acme", "--design-system", file, "--markdown"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(
      "# Acme style guide\n\n## Brand\n\n- Name: Acme\n\n## Voice\n\nfriendly\n\n## Colours\n\n| Name | Value | Usage |\n|---|---|---|\n| primary | `#FF0000` |  |\n",
    );
    const shown = await cli.run(["brand", "show", "--markdown"]);
    expect(shown.stdout).toBe(res.stdout);
  });

  it("clears fields with --clear", async () => {
    const cli = await localCli();
    await cli.run(["brand", "set", "--name", "Acme", "--website", "https://acme.example"]);
    const res = await cli.run(["brand", "set", "--clear", "website", "--json"]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ brandName: "Acme", websiteUrl: null });
  });

  it("exits 2 for bad input: invalid values, unreadable or non-JSON files, nothing to change", async () => {
    const cli = await localCli();
    const badEmail = await cli.run(["brand", "set", "--email", "nope"]);
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toContain("--email must be a valid email address");
    const file = join(tempDir(), "brand.json");
    writeFileSync(file, "{ not json");
    const badFile = await cli.run(["brand", "set", "--design-system", file]);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toContain(`--design-system ${file}: not valid JSON`);
    const missing = await cli.run(["brand", "set", "--design-system", join(tempDir(), "missing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read it (ENOENT)");
    const nothing = await cli.run(["brand", "set"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("nothing to change");
    const unknown = await cli.run(["brand", "set", "--clear", "colour"]);
    expect(unknown.code).toBe(2);
  });

  it("has --help with an example for every subcommand", async () => {
    for (const verb of ["show", "set"]) {
      const res = await runCli(["brand", verb, "--help"]);
      expect(res.code, verb).toBe(0);
      expect(res.stdout, verb).toContain("Examples:\n  $ outreach brand");
    }
  });
});
