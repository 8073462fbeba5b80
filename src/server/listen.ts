import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { toNodeHandler } from "h3";
import { listen } from "listhen";
import type { ApiApp } from "./app.js";
import type { Logger } from "./errors.js";

export interface RunningServer {
  url: string;
  port: number;
  /** Stop accepting, let in-flight requests finish, then resolve. */
  close(): Promise<void>;
}

export interface StartServerOptions {
  host: string;
  port: number;
  log: Logger;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/**
 * Serve the app over HTTP through listhen. listhen's defaults suit a dev server, not
 * this one: it would silently move to another port when ours is busy and bind every
 * interface under NODE_ENV=production. So the port is pinned (a busy port is an error),
 * the host is exactly the one asked for, and shutdown is ours to drive.
 */
export async function startServer(app: ApiApp, options: StartServerOptions): Promise<RunningServer> {
  const handler = toNodeHandler(app.h3);
  // One line per request: method, path (never the query, which can hold personal data), status, ms.
  const logged = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    res.once("close", () => {
      const path = (req.url ?? "/").split("?")[0];
      const ms = (performance.now() - started).toFixed(1);
      options.log(`${req.method} ${path} ${res.statusCode} ${ms}ms${res.writableFinished ? "" : " (client went away)"}`);
    });
    return handler(req, res);
  };
  let listener: Awaited<ReturnType<typeof listen>>;
  try {
    listener = await listen(logged, {
    hostname: options.host,
    port: { port: options.port, ports: [], portRange: [], alternativePortRange: [options.port, options.port], random: false },
    public: !isLoopback(options.host),
    showURL: false,
    open: false,
    clipboard: false,
    qr: false,
    autoClose: false,
    isProd: false,
    isTest: true,
    } as never);
  } catch (err) {
    if (/available port|EADDRINUSE/i.test((err as Error).message)) {
      throw new Error(`port ${options.port} on ${options.host} is already in use (choose another with --port)`);
    }
    throw err;
  }
  const port = listener.address.port;
  if (options.port !== 0 && port !== options.port) {
    await listener.close();
    throw new Error(`port ${options.port} on ${options.host} is already in use`);
  }
  const server = listener.server as Server;
  const shownHost = isIP(options.host) === 6 ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    async close() {
      // http-shutdown (inside listhen) stops accepting, drops idle keep-alive sockets
      // and closes busy ones once their response has finished.
      await listener.close();
      server.closeIdleConnections?.();
    },
  };
}
