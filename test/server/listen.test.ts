import { request as httpRequest, Agent } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { drain } from "../../src/server/drain.js";
import { startServer, type RunningServer } from "../../src/server/listen.js";
import type { AnyRouteContext, RouteSpec } from "../../src/server/route.js";
import { z } from "zod";
import { createTestInstance } from "../helpers/instance.js";

const servers: RunningServer[] = [];

afterEach(async () => {
  entered.length = 0;
  for (const server of servers.splice(0)) {
    const closed = server.stopAccepting();
    server.closeAllConnections();
    await closed;
  }
});

/** A route of this test only (not in the contract): an addition answering anyone. */
const testRoute = (spec: Omit<RouteSpec, "id" | "operationId" | "summary" | "tag" | "auth" | "addition" | "endpoint">): RouteSpec =>
  ({ ...spec, id: spec.path, operationId: spec.path.slice(1), summary: "test", tag: "test", auth: "none", addition: true }) as RouteSpec;

/**
 * Handlers entered so far, by path: a test waits for its requests to be in flight (rather than for a
 * fixed time, which a loaded machine overruns) before it starts draining.
 */
const entered: string[] = [];
async function inFlight(...paths: string[]): Promise<void> {
  while (!paths.every((path) => entered.includes(path))) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A route that answers when the drain's cut-off aborts, or after `?ms=`: an in-flight request. */
const slow = testRoute({
  method: "GET",
  path: "/slow",
  response: z.object({ cut: z.boolean() }),
  handler: ({ cutoff, query }: AnyRouteContext) =>
    new Promise((resolve) => {
      entered.push("/slow");
      const timer = setTimeout(() => resolve({ cut: false }), Number((query as { ms?: string } | undefined)?.ms ?? 60_000));
      cutoff.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve({ cut: true });
      });
    }),
  query: z.object({ ms: z.string().optional() }),
});

/** Never answers: only the deadline ends it. */
const stuck = testRoute({ method: "GET", path: "/stuck", response: z.object({}), handler: () => new Promise(() => void entered.push("/stuck")) });

async function serve(routes = [slow, stuck]) {
  const t = createTestInstance();
  const logs: string[] = [];
  const app = createApp(t.services, { log: (l) => logs.push(l), routes });
  const server = await startServer(app, { host: "127.0.0.1", port: 0, log: (l) => logs.push(l) });
  servers.push(server);
  return { t, app, server, logs };
}

function get(url: string, agent?: Agent): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("serve's socket (node:http)", () => {
  it("keeps connections alive for requests without a body, and closes them after answering before a body was read", async () => {
    const { server } = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(`${server.url}/healthz`, agent);
    const second = await get(`${server.url}/healthz`, agent);
    expect([first.connection, second.connection]).toEqual(["keep-alive", "keep-alive"]);
    expect(server.connections).toBe(1);
    agent.destroy();
    const big = await fetch(`${server.url}/api/v1/teams/switch`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) }, body: "x".repeat(2 * 1024 * 1024) }).catch((err: Error) => err);
    // Refused before a byte of the body is read (401: no token): the connection is not kept.
    expect(big instanceof Error ? "reset" : big.headers.get("connection")).toMatch(/^(close|reset)$/);
  });

  it("drains: in-flight requests finish, idle connections close, new ones are refused, and it resolves once all are closed", async () => {
    const { app, server } = await serve();
    const agent = new Agent({ keepAlive: true });
    await get(`${server.url}/healthz`, agent); // an idle keep-alive connection
    const answer = get(`${server.url}/slow?ms=1000`);
    await inFlight("/slow");
    const outcome = await drain(app, server, { timeoutMs: 5000, log: () => {} });
    expect(outcome).toEqual({ finished: true, dropped: 0 });
    const answered = await answer;
    expect(answered).toMatchObject({ status: 200, connection: "close" });
    expect(JSON.parse(answered.body)).toEqual({ cut: false });
    await expect(get(`${server.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });

  it("cuts in-flight work at the cut-off with an answer, and drops what still hangs at the deadline", async () => {
    const { app, server, logs } = await serve();
    const cut = get(`${server.url}/slow`);
    const hung = get(`${server.url}/stuck`).catch((err: Error) => err.message);
    await inFlight("/slow", "/stuck");
    const outcome = await drain(app, server, { timeoutMs: 400, log: (l) => logs.push(l) });
    expect(outcome).toEqual({ finished: false, dropped: 1 });
    expect(JSON.parse((await cut).body)).toEqual({ cut: true });
    expect(await hung).toMatch(/socket hang up|ECONNRESET/);
    expect(logs).toContain("shutdown: cutting in-flight work short (2 connection(s) still open)");
    expect(logs).toContain("shutdown: dropping 1 connection(s) still open after 400 ms");
  });
});
