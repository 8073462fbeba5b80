import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import { toNodeHandler } from "h3/node";
import type { ApiApp } from "./app.js";
import type { Logger } from "./errors.js";
import { REQUEST_ID_HEADER, requestIdFrom } from "./request-id.js";

export interface RunningServer {
  url: string;
  port: number;
  /** Connections open right now (busy or idle). */
  readonly connections: number;
  /**
   * Stop accepting, close idle keep-alive connections now and every other one as soon as
   * its response has gone out; resolves once the last connection is closed.
   */
  stopAccepting(): Promise<void>;
  /** Drop every connection, busy or not (the drain deadline has passed). */
  closeAllConnections(): void;
}

export interface StartServerOptions {
  host: string;
  port: number;
  log: Logger;
}

/**
 * Serve the app over HTTP with node:http. The port is pinned (a busy port is an error,
 * never a silent move to another one), the host is exactly the one asked for, and
 * shutdown is ours to drive (`server/drain.ts`).
 *
 * Not listhen: it always wraps the server in http-shutdown, whose response 'finish'
 * handler dereferences `req.socket`, which Node has already set to null when a response
 * (a 413, say) goes out before the request body was read to the end; the TypeError is
 * thrown from an event handler and ended the process. Everything else listhen did here
 * (port search, public binding, URL printing) had to be switched off, and Node's own
 * `closeIdleConnections()`/`closeAllConnections()` do what http-shutdown did.
 */
export async function startServer(app: ApiApp, options: StartServerOptions): Promise<RunningServer> {
  const handler = toNodeHandler(app.h3);
  let stopping = false;
  let connections = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // The id is settled here so the log line has it; the app echoes it (it is sane by now).
    const id = requestIdFrom(req.headers[REQUEST_ID_HEADER] as string | undefined);
    req.headers[REQUEST_ID_HEADER] = id;
    keepBodylessConnectionsShort(req, res, () => stopping);
    // One line per request: ISO time, request id, method, path (never the query, which can
    // hold personal data), status, ms.
    res.once("close", () => {
      // An unsubscribe token is a capability: logged by its first characters only.
      const path = (req.url ?? "/").split("?")[0]!.replace(/^(\/u\/[^/]{0,8})[^/]*/, "$1…");
      const ms = (performance.now() - started).toFixed(1);
      options.log(`${new Date().toISOString()} ${id} ${req.method} ${path} ${res.statusCode} ${ms}ms${res.writableFinished ? "" : " (client went away)"}`);
      // While stopping, a connection whose response is done has nothing left to do.
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      // The app answers its own errors; this is the last guard, so a fault in the adapter
      // costs one request, never the process.
      options.log(`internal error outside the app: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      try {
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { "content-type": "application/json; charset=utf-8", connection: "close" }).end(JSON.stringify({ error: "internal error" }));
      } catch {
        // Answering failed too (the socket is gone): dropping the connection is all that is left.
        res.destroy();
      }
    });
  });
  server.on("connection", (socket) => {
    connections++;
    socket.once("close", () => connections--);
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") reject(new Error(`port ${options.port} on ${options.host} is already in use (choose another with --port)`));
      else reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen({ port: options.port, host: options.host, exclusive: true });
  });
  // After start-up an error on the listening socket is logged, not thrown from an emitter.
  server.on("error", (err) => options.log(`server error: ${err.message}`));
  const port = (server.address() as { port: number }).port;
  const shownHost = isIP(options.host) === 6 ? `[${options.host}]` : options.host;
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()));
  return {
    url: `http://${shownHost}:${port}`,
    port,
    get connections() {
      return connections;
    },
    stopAccepting() {
      if (!stopping) {
        stopping = true;
        server.close();
        server.closeIdleConnections();
      }
      return closed;
    },
    closeAllConnections() {
      server.closeAllConnections();
    },
  };
}

/**
 * A response that goes out before its request body was read to the end (a 413, a 401
 * before the body was looked at) says `Connection: close`, so the client cannot keep
 * feeding the rest of an oversized body into a kept-alive connection, and lingers before
 * closing it; so does every response while the server is stopping (without the linger).
 */
function keepBodylessConnectionsShort(req: IncomingMessage, res: ServerResponse, stopping: () => boolean): void {
  // A request without a body is complete once its headers are in (Node sets `complete`
  // only after the handler has started, so that flag alone would close every GET's connection).
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    const bodyUnread = hasBody && !req.complete;
    if (stopping() || bodyUnread) this.shouldKeepAlive = false;
    // The socket is null once the client has gone: nothing left to linger on.
    if (bodyUnread && req.socket) lingerBeforeClosing(req.socket);
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}

/** How long a connection answered before its body was read keeps reading what the client still sends. */
const LINGER_MS = 5_000;

/**
 * Lingering close (as Apache and nginx do it): closing a socket with unread request bytes
 * makes the kernel send a reset, and a client still uploading then gets EPIPE/ECONNRESET
 * instead of our 413 or 401; under load the reset can even discard the answer before it
 * leaves. So once the answer is out we half-close, keep reading and discarding, and close
 * when the client does or after LINGER_MS.
 */
function lingerBeforeClosing(socket: Socket): void {
  if ((socket as LingeringSocket).lingers) return;
  (socket as LingeringSocket).lingers = true;
  socket.destroySoon = function (this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    this.once("end", close);
    this.once("close", () => clearTimeout(timer));
    this.resume();
  };
}

interface LingeringSocket extends Socket {
  lingers?: boolean;
}
