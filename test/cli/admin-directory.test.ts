import { describe, expect, it } from "vitest";
import { openInstance } from "../../src/services/instance.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";

const INIT = ["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"];

/** A data directory with Ada (owner of acme) and Bob (member of acme, owner of bobco). */
async function directory() {
  const env = cliEnv();
  const dataDir = tempDir();
  const cli = (...argv: string[]) => runCli(["--data-dir", dataDir, ...argv], { env });
  expect((await cli(...INIT)).code).toBe(0);
  expect((await cli("admin", "users", "create", "--email", "bob@example.com", "--name", "Bob")).code).toBe(0);
  expect((await cli("admin", "members", "add", "--team", "acme", "--email", "bob@example.com", "--role", "member")).code).toBe(0);
  expect((await cli("admin", "teams", "create", "--name", "Bobco", "--owner", "bob@example.com")).code).toBe(0);
  return { env, dataDir, cli };
}

describe("outreach admin: list and remove users, workspaces and members", () => {
  it("users list, teams list and members list, as JSON and as tab-separated rows", async () => {
    const { cli } = await directory();
    const users = JSON.parse((await cli("admin", "users", "list", "--json")).stdout).users;
    expect(users.map((u: { email: string; workspaces: number }) => [u.email, u.workspaces])).toEqual([
      ["ada@example.com", 1],
      ["bob@example.com", 2],
    ]);
    const teams = (await cli("admin", "teams", "list")).stdout.trim().split("\n").map((l) => l.split("\t").slice(0, 4));
    expect(teams).toEqual([
      ["acme", "Acme", "self-hosted", "2"],
      ["bobco", "Bobco", "self-hosted", "1"],
    ]);
    const members = JSON.parse((await cli("admin", "members", "list", "--team", "acme", "--json")).stdout).members;
    expect(members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`)).toEqual(["ada@example.com:owner", "bob@example.com:member"]);
    const unknown = await cli("admin", "members", "list", "--team", "nope");
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/no workspace with slug nope/);
  });

  it("members rm takes a user out of one workspace; the last owner cannot leave", async () => {
    const { cli } = await directory();
    const rm = await cli("admin", "members", "rm", "--team", "acme", "--email", "bob@example.com");
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse((await cli("admin", "members", "list", "--team", "acme", "--json")).stdout).members).toHaveLength(1);
    const last = await cli("admin", "members", "rm", "--team", "acme", "--email", "ada@example.com");
    expect(last.code).toBe(5);
    expect(last.stderr).toMatch(/only owner of acme/);
    expect((await cli("admin", "members", "rm", "--team", "acme", "--email", "bob@example.com")).code).toBe(3);
  });

  it("users rm removes the user and their tokens; the only owner of a shared workspace, or its only member, is refused", async () => {
    const { cli, env, dataDir } = await directory();
    const token = (await cli("admin", "tokens", "create", "--email", "bob@example.com")).stdout.trim();
    const asBob = (...argv: string[]) => runCli(["--data-dir", dataDir, "--token", token, ...argv], { env });
    expect((await asBob("whoami")).code).toBe(0);
    // What Bob's own workspace holds: a contact and a campaign.
    expect((await asBob("teams", "switch", "bobco")).code).toBe(0);
    expect((await asBob("contacts", "add", "--email", "client@example.org", "--name", "Client")).code).toBe(0);
    expect((await asBob("campaigns", "create", "--name", "Hello", "--subject", "Hi")).code).toBe(0);
    // Ada owns acme, which Bob is in.
    const ada = await cli("admin", "users", "rm", "--email", "ada@example.com");
    expect(ada.code).toBe(5);
    expect(ada.stderr).toMatch(/only owner of workspace acme/);
    // Bob is the only member of bobco: removing him would leave it with no one.
    const bob = await cli("admin", "users", "rm", "--email", "bob@example.com");
    expect(bob.code).toBe(5);
    expect(bob.stderr).toMatch(/bob@example\.com is the only member of workspace bobco: removing them would leave it with no one\. .*--with-workspaces/);
    expect((await asBob("whoami")).code).toBe(0);
    expect((await asBob("contacts", "list")).stdout).toMatch(/client@example\.org/);

    const removed = await cli("admin", "users", "rm", "--email", "bob@example.com", "--with-workspaces", "--json");
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ user: { email: "bob@example.com" }, removedWorkspaces: ["bobco"] });
    expect((await asBob("whoami")).code).toBe(4);
    expect(JSON.parse((await cli("admin", "users", "list", "--json")).stdout).users).toHaveLength(1);
    const teams = (await cli("admin", "teams", "list")).stdout.trim().split("\n").map((l) => l.split("\t")[0]);
    expect(teams).toEqual(["acme"]);
    expect(JSON.parse((await cli("admin", "members", "list", "--team", "acme", "--json")).stdout).members.map((m: { email: string }) => m.email)).toEqual(["ada@example.com"]);
    // Nothing of bobco is left behind (acme never had a contact or a campaign).
    const instance = openInstance({ dataDir, env });
    try {
      for (const table of ["contacts", "contact_gram_postings", "campaign_replies", "campaigns"]) {
        expect(instance.services.deps.db.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
      }
    } finally {
      instance.close();
    }
  });

  it("teams rename: the slug follows the name unless --slug is given; a taken slug is a conflict", async () => {
    const { cli } = await directory();
    const renamed = await cli("admin", "teams", "rename", "--team", "acme", "--name", "Acme Dental", "--json");
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ name: "Acme Dental", slug: "acme-dental" });
    const explicit = await cli("admin", "teams", "rename", "--team", "acme-dental", "--name", "Acme", "--slug", "ad");
    expect(explicit.code).toBe(0);
    expect((await cli("admin", "teams", "rename", "--team", "ad", "--name", "X", "--slug", "bobco")).code).toBe(5);
    const bad = await cli("admin", "teams", "rename", "--team", "ad", "--name", "X", "--slug", "Not A Slug");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/slug "Not A Slug" must be lowercase/);
  });
});

describe("outreach init adopts a data directory initialised with defaults", () => {
  it("renames the default user and workspace, keeps their data, and the new token works", async () => {
    const env = cliEnv({ USER: "root" });
    const dataDir = tempDir();
    const cli = (...argv: string[]) => runCli(["--data-dir", dataDir, ...argv], { env });
    // First use: the CLI initialises the directory with defaults.
    const add = await cli("contacts", "add", "--email", "kept@example.org", "--name", "Kept");
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/root@localhost\.localdomain.*"Personal"/);
    expect(add.stderr).toMatch(/outreach init/);

    const init = await cli(...INIT, "--json");
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toMatch(/Adopted the default user root@localhost\.localdomain and workspace "Personal"/);
    const body = JSON.parse(init.stdout);
    expect(body.user).toMatchObject({ name: "Ada", email: "ada@example.com" });
    expect(body.team).toMatchObject({ name: "Acme", slug: "acme", role: "owner" });

    const who = await runCli(["--data-dir", dataDir, "--token", body.token, "whoami"], { env });
    expect(who.stdout).toMatch(/Ada <ada@example.com>/);
    const contacts = await cli("contacts", "list", "--json");
    expect(JSON.parse(contacts.stdout).contacts.map((c: { email: string }) => c.email)).toEqual(["kept@example.org"]);
    // Adopted once: a second init refuses as before.
    expect((await cli(...INIT)).code).toBe(5);
  });
});
