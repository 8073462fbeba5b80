import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3";
import { closeAfterEach } from "./close-after-each.js";
import { createApp, type ApiApp } from "../../src/server/app.js";
import type { Services } from "../../src/services/index.js";


export type TestRequestInit = RequestInit & { token?: string; json?: unknown };

/** Turn `{token, json}` shorthands into headers and a body. */
export function toRequestInit(init: TestRequestInit = {}): RequestInit {
  const { token, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body = rest.body;
  if (json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(json);
  }
  return { ...rest, headers, body };
}

export interface TestServer {
  url: string;
  app: ApiApp;
  logs: string[];
  /** fetch against the server with an optional bearer token. */
  request(path: string, init?: TestRequestInit): Promise<Response>;
}

/** The real app on a real loopback socket (port 0), closed after the test. */
export async function startTestServer(services: Services): Promise<TestServer> {
  const logs: string[] = [];
  const app = createApp(services, { log: (line) => logs.push(line) });
  const server = createServer(toNodeHandler(app.h3));
  closeAfterEach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    app,
    logs,
    request: (path, init) => fetch(url + path, toRequestInit(init)),
  };
}

/** Parse an NDJSON body into its lines (each line must be JSON on its own). */
export async function readNdjson(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
