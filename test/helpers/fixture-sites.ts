import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeAfterEach } from "./close-after-each.js";
import type { LookupFunction } from "../../src/providers/web/safe-fetcher.js";

export type FixtureResponse =
  | string
  | {
      status?: number;
      headers?: Record<string, string | number>;
      body?: string | Buffer;
      delayMs?: number;
      /**
       * The first request for this path is never answered (the client must give up on it);
       * later ones are answered at once: a site too slow for the search's budget and fine
       * for the retry, with no wall-clock delay to wait out.
       */
      holdFirst?: boolean;
    }
  | ((req: IncomingMessage, res: ServerResponse) => void);

/** host → path → response. Hosts are virtual: every name resolves to 127.0.0.1 through `fixtureLookup`. */
export type FixtureMap = Record<string, Record<string, FixtureResponse>>;

export interface FixtureSites {
  port: number;
  /** `http://<host>:<port><path>` */
  url(host: string, path?: string): string;
  /** Requests received, per host (robots.txt included). */
  hits(host?: string): number;
  requests: Array<{ host: string; path: string; userAgent: string }>;
}


/** Real websites on a loopback socket, told apart by the Host header. Unknown paths (and robots.txt unless given) are 404. */
export async function startFixtureSites(sites: FixtureMap): Promise<FixtureSites> {
  const requests: FixtureSites["requests"] = [];
  const held = new Set<string>();
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
    const path = req.url ?? "/";
    requests.push({ host, path, userAgent: String(req.headers["user-agent"] ?? "") });
    const handler = sites[host]?.[path];
    if (handler === undefined) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>not found</h1>");
      return;
    }
    if (typeof handler === "function") return handler(req, res);
    const spec = typeof handler === "string" ? { body: handler } : handler;
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(spec.status ?? 200, { "content-type": "text/html; charset=utf-8", ...spec.headers });
      res.end(spec.body ?? "");
    };
    if (spec.holdFirst && !held.has(`${host}${path}`)) held.add(`${host}${path}`);
    else if (spec.delayMs) setTimeout(send, spec.delayMs);
    else send();
  });
  closeAfterEach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (host, path = "/") => `http://${host}:${port}${path}`,
    hits: (host) => requests.filter((r) => host === undefined || r.host === host).length,
    requests,
  };
}

/** A resolver for tests: every name is 127.0.0.1 (never real DNS). */
export const fixtureLookup: LookupFunction = (_hostname, _options, callback) => {
  setImmediate(() => callback(null, [{ address: "127.0.0.1", family: 4 }]));
};
