import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { cliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";

describe("the built binary end to end", () => {
  it("init --json, serve, remote CLI calls, SIGTERM with a request in flight, exit 0", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const { token } = JSON.parse(init.stdout) as { token: string };

    const serve = await spawnServe(dataDir, env);
    const url = serve.url;
    expect(url).toBe(`http://127.0.0.1:${serve.port}`);

    const me = await fetch(`${url}/api/v1/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(await me.json()).toMatchObject({ name: "Ada", email: "ada@example.com" });
    const teams = await (await fetch(`${url}/api/v1/teams`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(teams.activeTeam).toMatchObject({ name: "Acme", role: "owner" });
    const wrong = await fetch(`${url}/api/v1/user/me`, { headers: { authorization: "Bearer otr_pat_nope" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toHaveProperty("error");

    const remote = await runBin(["--base-url", url, "--token", token, "whoami", "--json"], cliEnv());
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout).activeTeam.slug).toBe("acme");

    // A request whose body is still arriving when SIGTERM comes must still be answered.
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/api/v1/teams/switch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
      req.write('{"teamId":');
      setTimeout(() => {
        serve.child.kill("SIGTERM");
        setTimeout(() => req.end(`"${teams.activeTeam.id}"}`), 300);
      }, 200);
    });
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).activeTeam.id).toBe(teams.activeTeam.id);
    expect((await serve.exited).code).toBe(0);
    expect(serve.stderr()).toMatch(/GET \/api\/v1\/user\/me 200 [\d.]+ms/);
    expect(serve.stderr()).toMatch(/GET \/api\/v1\/user\/me 401/);
    expect(serve.stderr()).toMatch(/SIGTERM: finishing in-flight requests/);
    expect(serve.stderr()).not.toContain(token);
  });

  it("serve refuses a port that is already taken instead of moving elsewhere", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runBin(["serve", "--data-dir", tempDir(), "--port", String(port)], cliEnv());
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`port ${port} .*in use|EADDRINUSE`));
    } finally {
      blocker.close();
    }
  });
});
