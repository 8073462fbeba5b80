import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

/** A CLI environment logged in to a real server on 127.0.0.1. */
async function loggedIn() {
  const instance = createTestInstance();
  const server = await startTestServer(instance.services);
  const env = cliEnv();
  const login = await runCli(["--base-url", server.url, "--token", instance.token, "auth", "login"], { env });
  expect(login.code, login.stderr).toBe(0);
  return { instance, server, env };
}

describe("operator commands never act on the local default directory by mistake", () => {
  it("with --base-url, `admin users create`, `init` and `places stats` refuse with exit 2, naming the server and the directory", async () => {
    const env = cliEnv();
    for (const argv of [
      ["admin", "users", "create", "--email", "bob@example.com", "--name", "Bob"],
      ["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"],
      ["places", "stats"],
    ]) {
      const out = await runCli(["--base-url", "http://127.0.0.1:9", ...argv], { env });
      expect(out.code, argv.join(" ")).toBe(2);
      expect(out.stderr).toContain(`\`outreach ${argv.slice(0, argv[0] === "init" ? 1 : 2).join(" ")}`);
      expect(out.stderr).toMatch(/talks to http:\/\/127\.0\.0\.1:9 \(--base-url\)/);
      expect(out.stderr).toContain(`${env.XDG_DATA_HOME}/outreach`);
      expect(out.stdout).toBe("");
    }
    const viaEnv = await runCli(["admin", "users", "list"], { env: { ...env, OUTREACH_BASE_URL: "http://127.0.0.1:9" } });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stderr).toMatch(/OUTREACH_BASE_URL/);
  });

  it("after `auth login`, `admin users create` refuses instead of printing a token the server would reject", async () => {
    const { env, instance, server } = await loggedIn();
    const out = await runCli(["admin", "users", "create", "--email", "bob@example.com", "--name", "Bob"], { env });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${server.url} (the saved \`outreach auth login\`)`);
    expect(out.stderr).toMatch(/outreach auth tokens/);
    expect(instance.services.identity.users.count()).toBe(1);
    // No local directory was created or written either.
    const places = await runCli(["places", "import", "nothing.csv"], { env });
    expect(places.code).toBe(2);
  });

  it("an explicit --data-dir is obeyed whatever the remote settings say", async () => {
    const { env } = await loggedIn();
    const dataDir = tempDir();
    const init = await runCli(["--data-dir", dataDir, "init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], { env });
    expect(init.code, init.stderr).toBe(0);
    const created = await runCli(["--base-url", "http://127.0.0.1:9", "--data-dir", dataDir, "admin", "users", "create", "--email", "bob@example.com", "--name", "Bob", "--json"], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).user.email).toBe("bob@example.com");
  });
});
