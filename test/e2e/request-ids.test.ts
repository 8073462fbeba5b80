import { describe, expect, it } from "vitest";
import { cliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";

describe("request ids (outreach serve)", () => {
  it("every answer carries X-Request-Id (a sane incoming one echoed, else a new one), and each request is one log line with an ISO time and that id", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    const { token } = JSON.parse(init.stdout) as { token: string };
    const serve = await spawnServe(dataDir, env);
    const auth = { authorization: `Bearer ${token}` };

    const echoed = await fetch(`${serve.url}/api/v1/user/me`, { headers: { ...auth, "x-request-id": "trace-42.abc" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-42.abc");
    const made = await fetch(`${serve.url}/api/v1/user/me`, { headers: auth });
    expect(made.headers.get("x-request-id")).toMatch(/^req_[0-9A-Za-z]{16}$/);
    for (const insane of ["has spaces in it", "x".repeat(65), "quote\"d<script>"]) {
      const res = await fetch(`${serve.url}/api/v1/user/me`, { headers: { ...auth, "x-request-id": insane } });
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    }
    // Errors, unknown paths, 401s and the documents without auth carry one too.
    const ids = [];
    for (const [path, init] of [
      ["/api/v1/nowhere", {}],
      ["/api/v1/user/me", {}],
      ["/healthz", {}],
      ["/api/v1/openapi.json", {}],
      ["/api/v1/contacts/add", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{" }],
    ] as const) {
      const res = await fetch(serve.url + path, init);
      ids.push(res.headers.get("x-request-id"));
    }
    expect(ids.every((id) => id && /^req_/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);

    serve.child.kill("SIGTERM");
    await serve.exited;
    const log = serve.stderr();
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z trace-42\.abc GET \/api\/v1\/user\/me 200 [\d.]+ms$/m);
    expect(log).toContain(` ${made.headers.get("x-request-id")} GET /api/v1/user/me 200 `);
    expect(log).toMatch(new RegExp(` ${ids[0]} GET /api/v1/nowhere 404 `));
    expect(log).toMatch(new RegExp(` ${ids[4]} POST /api/v1/contacts/add 400 `));
  });
});
