import { request as httpRequest, Agent } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { drain } from "../../src/server/drain.js";
import { startServer, type RunningServer } from "../../src/server/listen.js";
import { allRoutes } from "../../src/server/routes/index.js";
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

async function serve(routes = [...allRoutes, slow, stuck]) {
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
    const big = await fetch(`${server.url}/api/v1/teams/switch`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) }, body: "x".repeat(2 * 1024 * 1024) });
    // Refused before a byte of the body is read (401: no token): the connection is not kept.
    expect(big.status).toBe(401);
    expect(big.headers.get("connection")).toBe("close");
  });

  it("lets a client still uploading an oversized body read the 413 (or 401) and close cleanly, never reset (lingering close)", async () => {
    const { t, server } = await serve();
    const body = Buffer.alloc(16 * 1024 * 1024, "a"); // more than the kernel buffers hold: the client is still writing when the answer comes
    const upload = (token: string | null) =>
      new Promise<{ status: string; error: string | null }>((resolve) => {
        const socket = connect(server.port, "127.0.0.1");
        let text = "";
        let error: string | null = null;
        socket.on("data", (d) => (text += d.toString("latin1")));
        socket.on("error", (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
        socket.on("close", () => resolve({ status: text.slice(9, 12), error }));
        socket.on("connect", () => {
          const auth = token ? `Authorization: Bearer ${token}\r\n` : "";
          socket.write(`POST /api/v1/contacts/add HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
          socket.end(body);
        });
      });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await upload(t.token), await upload(null));
    // Without lingering, every one of these ended in EPIPE or ECONNRESET on the client.
    expect(answers).toEqual(Array.from({ length: 3 }, () => [{ status: "413", error: null }, { status: "401", error: null }]).flat());
    // The server closes its side once the client has, well before the linger's time limit.
    await expect.poll(() => server.connections, { timeout: 2000 }).toBe(0);
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
