import { describe, expect, it } from "vitest";
import { IssuedPersonalToken, PersonalTokenList } from "../../src/core/schemas/personal-token.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

async function remote() {
  const instance = createTestInstance();
  const server = await startTestServer(instance.services);
  const env = cliEnv();
  const cli = (argv: string[], tty = false) => runCli(argv, { env, tty, deps: { clock: instance.clock } });
  const login = await cli(["--base-url", server.url, "--token", instance.token, "auth", "login"]);
  expect(login.code, login.stderr).toBe(0);
  const me = (token: string) => server.request("/api/v1/user/me", { token });
  return { instance, server, env, cli, me };
}

describe("personal access tokens over HTTP", () => {
  it("GET, POST and DELETE /api/v1/user/tokens: list without raw values, create once, revoke at once", async () => {
    const { instance, server, me } = await remote();
    const created = await server.request("/api/v1/user/tokens", { method: "POST", token: instance.token, json: { name: "ci" } });
    expect(created.status).toBe(201);
    const issued = IssuedPersonalToken.parse(await created.json());
    expect(issued.key).toMatch(/^otr_pat_/);
    expect(issued.token).toMatchObject({ name: "ci", prefix: issued.key.slice(0, issued.token.prefix.length), current: false, expiresAt: null, lastUsedAt: null });
    expect((await me(issued.key)).status).toBe(200);

    const listed = PersonalTokenList.parse(await (await server.request("/api/v1/user/tokens", { token: instance.token })).json());
    expect(listed.tokens.map((t) => t.name).sort()).toEqual(["ci", "init"]);
    expect(listed.tokens.find((t) => t.current)?.name).toBe("init");
    expect(JSON.stringify(listed)).not.toContain(issued.key);

    const revoked = await server.request(`/api/v1/user/tokens/${issued.token.id}`, { method: "DELETE", token: instance.token });
    expect(await revoked.json()).toEqual({ success: true });
    expect((await me(issued.key)).status).toBe(401);
    expect((await server.request(`/api/v1/user/tokens/${issued.token.id}`, { method: "DELETE", token: instance.token })).status).toBe(404);
  });

  it("another user's token is a 404; an expiry in the past is a 400; an expired token is refused", async () => {
    const { instance, server, me } = await remote();
    const bob = instance.addUser({ email: "bob@example.com" });
    const bobs = PersonalTokenList.parse(await (await server.request("/api/v1/user/tokens", { token: bob.token })).json()).tokens;
    const res = await server.request(`/api/v1/user/tokens/${bobs[0]!.id}`, { method: "DELETE", token: instance.token });
    expect(res.status).toBe(404);
    const past = await server.request("/api/v1/user/tokens", { method: "POST", token: instance.token, json: { name: "old", expiresAt: "2020-01-01T00:00:00Z" } });
    expect(past.status).toBe(400);
    expect((await past.json()).error).toMatch(/expiresAt/);
    const soon = IssuedPersonalToken.parse(
      await (await server.request("/api/v1/user/tokens", { method: "POST", token: instance.token, json: { name: "soon", expiresAt: "2026-11-22T11:00:00Z" } })).json(),
    );
    expect((await me(soon.key)).status).toBe(200);
    instance.clock.advance(3600_000);
    expect((await me(soon.key)).status).toBe(401);
  });
});

describe("outreach auth tokens", () => {
  it("list marks the token in use; create prints the raw token alone; revoke makes it fail at once", async () => {
    const { cli, me } = await remote();
    const created = await cli(["auth", "tokens", "create", "--name", "nightly-export"]);
    expect(created.code, created.stderr).toBe(0);
    const raw = created.stdout.trim();
    expect(raw).toMatch(/^otr_pat_\S+$/);
    expect(created.stderr).toMatch(/only time the token is shown/);
    expect((await me(raw)).status).toBe(200);

    const table = await cli(["auth", "tokens", "list"], true);
    expect(table.stdout).toMatch(/\*.*init/);
    // Created and used (by `me(raw)` above) at the test clock's time; no expiry.
    expect(table.stdout).toMatch(/nightly-export.*just now.*just now.*never/);
    const piped = await cli(["auth", "tokens", "list"]);
    const row = piped.stdout.split("\n").find((l) => l.includes("nightly-export"))!.split("\t");
    expect(row[4]).toBe("2026-11-22T10:00:00.000Z");

    const id = (JSON.parse((await cli(["auth", "tokens", "list", "--json"])).stdout) as { tokens: Array<{ id: string; name: string }> }).tokens.find((t) => t.name === "nightly-export")!.id;
    const revoke = await cli(["auth", "tokens", "revoke", id]);
    expect(revoke.code).toBe(0);
    expect((await me(raw)).status).toBe(401);
    expect((await cli(["auth", "tokens", "revoke", id])).code).toBe(3);
  });

  it("`auth logout --revoke` revokes the saved token on the server; plain logout says how to", async () => {
    const { instance, cli, me } = await remote();
    const plain = await cli(["auth", "logout"]);
    expect(plain.stderr).toMatch(/auth logout --revoke/);
    expect((await me(instance.token)).status).toBe(200);
    const again = await remote();
    const out = await again.cli(["auth", "logout", "--revoke"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/revoked on the server/);
    expect((await again.me(again.instance.token)).status).toBe(401);
  });
});
