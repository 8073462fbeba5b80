import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { transports } from "../helpers/two-ways.js";

describe.each(transports)("HTTP contract (%s)", (_name, connect) => {
  async function setup(config = {}) {
    const instance = createTestInstance({ config });
    return { instance, request: await connect(instance.services) };
  }

  it("answers unknown routes with a JSON 404", async () => {
    const { request, instance } = await setup();
    const res = await request("/api/v1/nothing-here", { token: instance.token });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ error: "no route for GET /api/v1/nothing-here" });
  });

  it("answers a known path with the wrong method with a JSON 405 and Allow", async () => {
    const { request, instance } = await setup();
    const res = await request("/api/v1/user/me", { method: "DELETE", token: instance.token });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect((await res.json()).error).toMatch(/method DELETE is not allowed/);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const { request, instance } = await setup();
    const big = JSON.stringify({ teamId: "x".repeat(1024 * 1024 + 10) });
    const res = await request("/api/v1/teams/switch", { method: "POST", token: instance.token, body: big, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toMatch(/larger than 1048576 bytes/);
  });

  it("refuses a body that is not JSON with 415, and broken JSON with 400", async () => {
    const { request, instance } = await setup();
    const form = await request("/api/v1/teams/switch", {
      method: "POST",
      token: instance.token,
      body: "teamId=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    const broken = await request("/api/v1/teams/switch", { method: "POST", token: instance.token, body: "{nope", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ error: 'request body is not valid JSON: expected a quoted key, found "n" at line 1 column 2' });
  });

  it("refuses a body that gives a key twice, whichever value is valid, naming the key", async () => {
    const { request, instance } = await setup();
    const send = (body: string) => request("/api/v1/teams/switch", { method: "POST", token: instance.token, body, headers: { "content-type": "application/json" } });
    for (const body of [`{"teamId":"x","teamId":"${instance.teamId}"}`, `{"teamId":"${instance.teamId}","teamId":"x"}`, `{"teamId":"${instance.teamId}","team\u0049d":"${instance.teamId}"}`]) {
      const res = await send(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toEqual({ error: "invalid body: teamId appears more than once (duplicate keys are refused)" });
    }
    expect((await send(`{"teamId":"${instance.teamId}"}`)).status).toBe(200);
  });

  it("answers a body nested 5,000 levels deep with 400 naming the field, and keeps bounding free-form objects", async () => {
    const { request, instance } = await setup();
    const patch = (body: string) => request("/api/v1/settings/brand", { method: "PATCH", token: instance.token, body, headers: { "content-type": "application/json" } });
    const deep = await patch('{"brandDesignSystem":' + '{"a":'.repeat(5000) + "1" + "}".repeat(5001));
    expect(deep.status).toBe(400);
    expect((await deep.json()).error).toMatch(/^invalid body: brandDesignSystem(\.a)+ is nested more than 32 levels deep$/);
    const arrays = await patch('{"brandDesignSystem":{"colors":' + "[".repeat(5000) + "]".repeat(5000) + "}}");
    expect(arrays.status).toBe(400);
    expect((await arrays.json()).error).toMatch(/^invalid body: brandDesignSystem\.colors(\[0\])+ is nested more than 32 levels deep$/);
    // Within the reader's bound, the field's own limits still name it.
    const nine = await patch('{"brandDesignSystem":' + '{"a":'.repeat(9) + "1" + "}".repeat(10));
    expect(nine.status).toBe(400);
    expect(await nine.json()).toEqual({ error: "invalid body: brandDesignSystem must be nested at most 8 levels deep (got 9)" });
    const wide = await patch(JSON.stringify({ brandDesignSystem: { notes: "x".repeat(70_000) } }));
    expect(wide.status).toBe(400);
    expect((await wide.json()).error).toMatch(/^invalid body: brandDesignSystem must be at most 65536 bytes as JSON/);
  });

  it("rejects unknown fields and names each bad field and why", async () => {
    const { request, instance } = await setup();
    const res = await request("/api/v1/teams/switch", { method: "POST", token: instance.token, json: { teamId: 42, tema: "x" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "invalid body: teamId must be a string (got number); tema is not a known field" });
    const empty = await request("/api/v1/teams/switch", { method: "POST", token: instance.token });
    expect(await empty.json()).toEqual({ error: "invalid body: body is required" });
  });

  it("sets nosniff and no-store on API answers, success and error alike, and no CORS by default", async () => {
    const { request, instance } = await setup();
    for (const res of [
      await request("/api/v1/user/me", { token: instance.token, headers: { origin: "https://evil.example" } }),
      await request("/api/v1/user/me", { headers: { origin: "https://evil.example" } }),
    ]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("answers CORS only for configured origins", async () => {
    const { request, instance } = await setup({ corsOrigins: ["https://app.example"] });
    const allowed = await request("/api/v1/user/me", { token: instance.token, headers: { origin: "https://app.example" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const other = await request("/api/v1/user/me", { token: instance.token, headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await request("/api/v1/user/me", { method: "OPTIONS", headers: { origin: "https://app.example" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
  });

  it("rate-limits per token with 429, Retry-After and X-RateLimit headers", async () => {
    const { request, instance } = await setup({ rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await request("/api/v1/user/me", { token: instance.token });
      statuses.push(last.status);
      if (i < 3) expect(last.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get("x-ratelimit-limit")).toBe("3");
    expect(Number(last!.headers.get("x-ratelimit-reset"))).toBeGreaterThan(instance.clock.now().getTime() / 1000);
    expect((await last!.json()).error).toMatch(/rate limit of 3 requests per minute/);
    // Another token has its own bucket; time refills this one.
    const bob = instance.addUser({ email: "bob@example.com" });
    expect((await request("/api/v1/user/me", { token: bob.token })).status).toBe(200);
    instance.clock.advance(20_000);
    expect((await request("/api/v1/user/me", { token: instance.token })).status).toBe(200);
  });

  it("serves /healthz and the OpenAPI document without a token", async () => {
    const { request } = await setup();
    expect(await (await request("/healthz")).json()).toEqual({ status: "ok" });
    const doc = await (await request("/api/v1/openapi.json")).json();
    expect(doc.openapi).toBe("3.1.0");
  });

  it("never leaks internals: an unexpected error is a bare 500", async () => {
    const { request, instance } = await setup();
    instance.services.deps.db.exec("DROP TABLE memberships");
    const res = await request("/api/v1/teams", { token: instance.token });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "internal error" });
    expect(text).not.toMatch(/SQL|memberships|at .*\.ts/);
  });
});
