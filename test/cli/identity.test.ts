import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configPath } from "../../src/cli/config.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { unusedPort } from "../helpers/ports.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

const INIT = ["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"];

describe("outreach init", () => {
  it("prints {user, team, token} with --json and saves the token with mode 0600", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const result = await runCli(["--data-dir", dataDir, ...INIT, "--json"], { env });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.user).toMatchObject({ name: "Ada", email: "ada@example.com" });
    expect(body.team).toMatchObject({ name: "Acme", slug: "acme", role: "owner", isBetaTester: false });
    expect(body.token).toMatch(/^otr_pat_/);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "secret.key")).mode & 0o777).toBe(0o600);
  });

  it("prints only the token on stdout without --json, the rest on stderr", async () => {
    const result = await runCli(["--data-dir", tempDir(), ...INIT]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^otr_pat_[0-9A-Za-z]{36}$/);
    expect(result.stderr).toMatch(/Ada <ada@example.com> owns workspace "Acme"/);
  });

  it("never prompts without a terminal: missing flags are a usage error (exit 2)", async () => {
    const result = await runCli(["--data-dir", tempDir(), "init", "--name", "Ada"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/missing --email, --team \(no prompts without a terminal\)/);
  });

  it("refuses to initialise a data directory twice (exit 5)", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    expect((await runCli(["--data-dir", dataDir, ...INIT], { env })).code).toBe(0);
    const again = await runCli(["--data-dir", dataDir, ...INIT], { env });
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/already initialised/);
  });

  it("an invalid email is exit 2 with the reason", async () => {
    const result = await runCli(["--data-dir", tempDir(), "init", "--name", "Ada", "--email", "nope", "--team", "Acme"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not a valid email address/);
  });
});

describe("local mode", () => {
  it("whoami and teams list work on the data directory in-process, piped as TSV", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    await runCli(["--data-dir", dataDir, ...INIT], { env });
    const who = await runCli(["--data-dir", dataDir, "whoami"], { env });
    expect(who.code).toBe(0);
    expect(who.stdout.split("\n")[0]).toBe("user\tAda <ada@example.com>");
    const teams = await runCli(["--data-dir", dataDir, "teams", "list"], { env });
    expect(teams.stdout).toMatch(/^\*\tteam_[0-9A-Za-z]{16}\tAcme\tacme\towner\n$/);
  });

  it("prints a table on a terminal", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    await runCli(["--data-dir", dataDir, ...INIT], { env });
    const teams = await runCli(["--data-dir", dataDir, "teams", "list"], { env, tty: true });
    // A header and a row, columns apart by spaces (no borders); * marks the active workspace.
    expect(teams.stdout).toMatch(/^ +ID +NAME +SLUG +ROLE\n\* +team_\w{16} +Acme +acme +owner\n$/);
  });

  it("initialises a fresh data directory on first use and says so on stderr", async () => {
    const env = cliEnv({ USER: "grace" });
    const dataDir = tempDir();
    const result = await runCli(["--data-dir", dataDir, "whoami", "--json"], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Initialised a new data directory/);
    expect(JSON.parse(result.stdout).user).toMatchObject({ name: "grace", email: "grace@localhost.localdomain" });
    const again = await runCli(["--data-dir", dataDir, "whoami", "--json"], { env });
    expect(again.stderr).toBe("");
  });

  it("re-issues a token for a data directory it has no token for", async () => {
    const dataDir = tempDir();
    await runCli(["--data-dir", dataDir, ...INIT]);
    const result = await runCli(["--data-dir", dataDir, "whoami", "--json"], { env: cliEnv() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/issued a new one for ada@example.com/);
  });

  it("switches workspaces by slug", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    await runCli(["--data-dir", dataDir, ...INIT], { env });
    expect((await runCli(["--data-dir", dataDir, "admin", "teams", "create", "--name", "Beta Labs", "--owner", "ada@example.com"], { env })).code).toBe(0);
    const switched = await runCli(["--data-dir", dataDir, "teams", "switch", "beta-labs", "--json"], { env });
    expect(switched.code).toBe(0);
    expect(JSON.parse(switched.stdout).activeTeam.slug).toBe("beta-labs");
    const missing = await runCli(["--data-dir", dataDir, "teams", "switch", "nope"], { env });
    expect(missing.code).toBe(3);
  });
});

describe("remote mode", () => {
  it("talks HTTP to --base-url with --token", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const result = await runCli(["--base-url", server.url, "--token", instance.token, "whoami", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ user: { email: "ada@example.com" }, activeTeam: { slug: "acme" } });
    expect(server.logs).toEqual([]);
  });

  it("a refused token is exit 4 with the server's message", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const result = await runCli(["--base-url", server.url, "--token", "otr_pat_broken", "teams", "list"]);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/error \(HTTP 401\): malformed token/);
  });

  it("connection refused is a clear message and exit 1", async () => {
    const port = await unusedPort();
    const result = await runCli(["--base-url", `http://127.0.0.1:${port}`, "--token", "otr_pat_x", "whoami"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not connect to http://127.0.0.1:${port}: connection refused`);
  });

  it("auth login checks the token, saves it, and later commands use it; logout forgets it", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const env = cliEnv();
    const bad = await runCli(["auth", "login", "--base-url", server.url, "--token", "otr_pat_broken"], { env });
    expect(bad.code).toBe(4);
    const login = await runCli(["auth", "login", "--base-url", server.url, "--with-token"], { env, stdin: instance.token + "\n" });
    expect(login.code).toBe(0);
    expect(login.stderr).toMatch(/Logged in to http:\/\/127.0.0.1:\d+ as Ada/);
    const status = await runCli(["auth", "status", "--json"], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ mode: "remote", target: server.url, user: { name: "Ada" } });
    expect((await runCli(["auth", "logout"], { env })).code).toBe(0);
    const local = await runCli(["auth", "status", "--json"], { env });
    expect(JSON.parse(local.stdout).mode).toBe("local");
  });
});

describe("admin commands", () => {
  it("create users, workspaces, memberships, plans and tokens on the data directory", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const admin = (...args: string[]) => runCli(["--data-dir", dataDir, "admin", ...args], { env });
    await runCli(["--data-dir", dataDir, ...INIT], { env });
    const bob = await admin("users", "create", "--email", "bob@example.com", "--name", "Bob", "--json");
    expect(bob.code).toBe(0);
    const bobToken = JSON.parse(bob.stdout).token as string;
    const team = await admin("teams", "create", "--name", "Bob Co", "--owner", "bob@example.com", "--plan", "free", "--json");
    expect(JSON.parse(team.stdout)).toMatchObject({ slug: "bob-co", role: "owner" });
    expect((await admin("members", "add", "--team", "acme", "--email", "bob@example.com", "--role", "admin")).code).toBe(0);
    expect((await admin("members", "add", "--team", "acme", "--email", "bob@example.com", "--role", "king")).code).toBe(2);
    expect((await admin("teams", "set-plan", "--team", "bob-co", "--plan", "pro", "--daily-searches", "7")).stderr).toMatch(/daily searches 7, contacts 50000/);
    expect((await admin("teams", "set-plan", "--team", "bob-co", "--plan", "gold")).code).toBe(2);
    expect((await admin("teams", "set-plan", "--team", "nope", "--plan", "pro")).code).toBe(3);
    expect((await admin("plans", "set", "free", "--daily-searches", "40", "--daily-sends", "250")).stderr).toMatch(/daily sends 250/);
    const plans = await admin("plans", "list", "--json");
    expect(JSON.parse(plans.stdout)).toContainEqual({ name: "free", dailySearches: 40, maxContacts: 1000, customSender: false, dailySends: 250 });
    const token = await admin("tokens", "create", "--email", "bob@example.com");
    expect(token.stdout.trim()).toMatch(/^otr_pat_/);

    const teams = await runCli(["--data-dir", dataDir, "--token", bobToken, "teams", "list", "--json"], { env });
    expect(JSON.parse(teams.stdout).teams.map((t: { slug: string; role: string }) => `${t.slug}:${t.role}`)).toEqual(["bob-co:owner", "acme:admin"]);
    expect((await admin("users", "create", "--email", "BOB@example.com", "--name", "Bob")).code).toBe(5);
  });

  it("backs up a consistent copy of the database", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    await runCli(["--data-dir", dataDir, ...INIT], { env });
    const file = join(tempDir(), "backup.db");
    const result = await runCli(["--data-dir", dataDir, "admin", "backup", file], { env });
    expect(result.code).toBe(0);
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT email FROM users").all()).toEqual([{ email: "ada@example.com" }]);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  });
});

describe("help and usage", () => {
  it("every command has --help with an example", async () => {
    for (const argv of [["init"], ["serve"], ["whoami"], ["teams", "list"], ["teams", "switch"], ["auth", "login"], ["admin", "users", "create"], ["admin", "backup"]]) {
      const result = await runCli([...argv, "--help"]);
      expect(result.code, argv.join(" ")).toBe(0);
      expect(result.stdout, argv.join(" ")).toMatch(/Examples:\n\s+\$ outreach /);
    }
  });

  it("an unknown option is exit 2", async () => {
    const result = await runCli(["whoami", "--frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--frobnicate'/);
  });
});
