import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

/** What real bash offers after `words` (the last one being completed), with the script loaded. */
function bashComplete(script: string, words: string[]): string[] {
  const file = join(tempDir(), "outreach.bash");
  writeFileSync(file, script);
  const line = words.map((w) => `'${w}'`).join(" ");
  const out = execFileSync("bash", ["-c", `source '${file}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _outreach; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: "utf8",
  });
  return out.split("\n").filter(Boolean).sort();
}

describe("outreach completion", () => {
  it("bash: commands, sub-commands and each command's flags (global ones included), from the real command tree", async () => {
    const out = await runCli(["completion", "bash"]);
    expect(out.code).toBe(0);
    const script = out.stdout;
    expect(bashComplete(script, ["outreach", ""])).toEqual(expect.arrayContaining(["admin", "auth", "completion", "contacts", "leads", "places"]));
    expect(bashComplete(script, ["outreach", "le"])).toEqual(["leads"]);
    expect(bashComplete(script, ["outreach", "auth", "tokens", ""])).toEqual(["create", "list", "revoke"]);
    expect(bashComplete(script, ["outreach", "leads", "search", "--key"])).toEqual(["--keywords"]);
    // Flags before the command and values between do not lose the place in the tree.
    expect(bashComplete(script, ["outreach", "--data-dir", "d", "leads", "search", "--location", "Vaduz", "--ra"])).toEqual(["--radius"]);
    expect(bashComplete(script, ["outreach", "contacts", "list", "--"])).toEqual(expect.arrayContaining(["--limit", "--data-dir", "--base-url", "--token", "--help"]));
  });

  it("zsh and fish scripts carry the same tree; an unknown shell is a usage error", async () => {
    const zsh = await runCli(["completion", "zsh"]);
    expect(zsh.stdout).toMatch(/bashcompinit/);
    expect(zsh.stdout).toContain("'auth tokens') echo 'list create revoke'");
    const fish = await runCli(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c outreach");
    expect(fish.stdout).toMatch(/case 'auth tokens'\n\s+printf '%s\\n' 'list' 'create' 'revoke'/);
    const bad = await runCli(["completion", "tcsh"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
