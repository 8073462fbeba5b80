import { describe, expect, it } from "vitest";
import { configPath, updateConfig } from "../../src/cli/config.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { createTestInstance } from "../helpers/instance.js";
import { unusedPort } from "../helpers/ports.js";
import { startTestServer } from "../helpers/server.js";

describe("outreach auth status", () => {
  it("works offline like gh's: the saved login, the token's prefix and that the server could not be reached, exit 0", async () => {
    const instance = createTestInstance();
    const env = cliEnv();
    const down = `http://127.0.0.1:${await unusedPort()}`;
    updateConfig(env, (config) => {
      config.remote = { baseUrl: down, token: instance.token };
    });
    const prefix = instance.token.slice(0, "otr_pat_".length + 4);

    const status = await runCli(["auth", "status"], { env, tty: true });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`mode:   remote\nserver: ${down}\ntoken:  ${prefix}… (saved by \`outreach auth login\` in ${configPath(env)})\n`);
    expect(status.stdout).not.toContain(instance.token);
    expect(status.stderr).toMatch(/the server could not be reached, so who you are there is unknown: could not connect to .*connection refused/);

    const json = await runCli(["auth", "status", "--json"], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ mode: "remote", target: down, token: { prefix: `${prefix}…` }, reachable: false, user: null, activeTeam: null });
  });

  it("names where the token comes from, and shows who you are when the server answers", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const status = await runCli(["--base-url", server.url, "--token", instance.token, "auth", "status"], { env: cliEnv(), tty: true });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^token: +otr_pat_\w{4}… \(--token\)$/m);
    expect(status.stdout).toMatch(/^user: +Ada </m);
    expect(status.stderr).toBe("");
  });

  it("a token the server refuses, or none, is still exit 4", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const refused = await runCli(["--base-url", server.url, "--token", "otr_pat_broken", "auth", "status"], { env: cliEnv() });
    expect(refused.code).toBe(4);
    const none = await runCli(["--base-url", server.url, "auth", "status"], { env: cliEnv() });
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/no token for/);
  });
});
