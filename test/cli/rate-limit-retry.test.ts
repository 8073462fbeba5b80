import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "../../src/core/retry-after.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

describe("against a server, the client waits out a 429 and goes on", () => {
  it("`contacts export` over a server limited to 3 requests a minute finishes whole, saying on stderr that it waited", async () => {
    const instance = createTestInstance({ config: { rateLimitPerMinute: 3 } });
    await instance.services.contacts.addMany(
      instance.teamId,
      Array.from({ length: 650 }, (_, i) => ({ email: `p${i}@example.org`, name: `P ${i}` })),
    );
    const server = await startTestServer(instance.services);
    // The CLI sleeps on the server's clock: its waits move the server's time, not the wall clock.
    const r = await runCli(["contacts", "export"], {
      env: cliEnv({ OUTREACH_BASE_URL: server.url, OUTREACH_TOKEN: instance.token }),
      deps: { clock: instance.clock },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(1 + 650);
    expect(r.stderr).toMatch(/rate limited by http:\/\/127\.0\.0\.1:\d+: waiting 20 s as it asks, then retrying \(1 of 5\)/);
    expect(server.logs.join("\n")).not.toMatch(/internal error/);
  });

  it("gives up after 5 retries of one request, with exit 6 and the server's message", async () => {
    let requests = 0;
    const server = closeAfterEach(
      createServer((_req, res) => {
        requests++;
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" }).end(JSON.stringify({ error: "slow down" }));
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const instance = createTestInstance();
    const r = await runCli(["contacts", "list"], {
      env: cliEnv({ OUTREACH_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, OUTREACH_TOKEN: instance.token }),
      deps: { clock: instance.clock },
    });
    expect(r.code).toBe(6);
    expect(requests).toBe(6);
    expect(r.stderr).toMatch(/\(5 of 5\)/);
    expect(r.stderr).toMatch(/slow down/);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterSeconds("7")).toBe(7);
    expect(retryAfterSeconds("Sun, 22 Nov 2026 10:00:30 GMT", Date.parse("2026-11-22T10:00:00Z"))).toBe(30);
    expect(retryAfterSeconds("soon")).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});
