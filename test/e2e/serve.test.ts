import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { unusedPort } from "../helpers/ports.js";

const BIN = join(fileURLToPath(new URL("../..", import.meta.url)), "bin", "outreach.js");

function runBin(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; got: ${seen}`)), 20_000);
    child.stdout!.on("data", (d) => {
      seen += d;
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.on("close", () => reject(new Error(`exited early: ${seen}`)));
  });
}

describe("the built binary end to end", () => {
  it("init --json, serve, remote CLI calls, SIGTERM with a request in flight, exit 0", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const { token } = JSON.parse(init.stdout) as { token: string };

    const port = await unusedPort();
    const serve = spawn(process.execPath, [BIN, "serve", "--data-dir", dataDir, "--port", String(port)], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let serveErr = "";
    serve.stderr!.on("data", (d) => (serveErr += d));
    const exited = new Promise<number | null>((resolve) => serve.on("close", (code) => resolve(code)));
    const url = await waitForLine(serve, /http:\/\/127\.0\.0\.1:\d+/);
    expect(url).toBe(`http://127.0.0.1:${port}`);

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
        serve.kill("SIGTERM");
        setTimeout(() => req.end(`"${teams.activeTeam.id}"}`), 300);
      }, 200);
    });
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).activeTeam.id).toBe(teams.activeTeam.id);
    expect(await exited).toBe(0);
    expect(serveErr).toMatch(/GET \/api\/v1\/user\/me 200 [\d.]+ms/);
    expect(serveErr).toMatch(/GET \/api\/v1\/user\/me 401/);
    expect(serveErr).toMatch(/SIGTERM: finishing in-flight requests/);
    expect(serveErr).not.toContain(token);
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
