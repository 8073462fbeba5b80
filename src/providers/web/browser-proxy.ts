import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { isBrowserServiceHost } from "./browser-service-hosts.js";
import { FetchError, type SafeWebFetcher } from "./safe-fetcher.js";

/** Bytes one proxied response or tunnel may carry (a page's scripts and images; a 1 GB download is cut). */
export const PROXY_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The browser's only way out: a forward proxy on 127.0.0.1 that Chromium is started with
 * (`--proxy-server`, loopback not bypassed). Every request it carries (documents, scripts,
 * images, fetch/XHR, iframes, WebSockets and the hops of redirects, which the browser makes
 * as new requests) is checked with the crawler's own rules before a byte leaves: the URL and
 * port rules, the name resolved once with every address classified, and the connection made
 * to that pinned address (a second, different DNS answer cannot be used). Plain HTTP requests
 * are also checked against robots.txt (HTTPS paths are checked by the browser's route
 * handler, which sees them before they are encrypted). Responses and tunnels are cut at
 * PROXY_MAX_BYTES. A refused request gets 403 and costs nothing else. The browser's own
 * service calls (updates, accounts, Safe Browsing: `browser-service-hosts.ts`) are refused
 * before their names are resolved.
 */
export class BrowserProxy {
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();
  /** Requests refused (SSRF rules, ports, robots), since start (tests and logs). */
  refused = 0;

  constructor(private readonly fetcher: SafeWebFetcher) {
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on("connection", (socket: net.Socket) => this.track(socket));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.server.unref();
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  private refuse(res: ServerResponse, why: string): void {
    this.refused++;
    if (!res.headersSent) res.writeHead(403, { "content-type": "text/plain", connection: "close" });
    res.end(why);
  }

  /** A plain HTTP request in absolute form (`GET http://host/path`). */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let address: string;
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new FetchError("bad_url", "only http is proxied as a request");
      if (isBrowserServiceHost(url.hostname)) throw new FetchError("blocked", "the browser's own service calls are not carried");
      address = await this.fetcher.resolvePinned(url.href);
      if (!(await this.fetcher.robotsAllow(url.href, AbortSignal.timeout(10_000)))) throw new FetchError("robots", "robots.txt disallows it");
    } catch (err) {
      return this.refuse(res, err instanceof Error ? err.message : "refused");
    }
    const headers = { ...req.headers };
    for (const name of Object.keys(headers)) if (/^proxy-/i.test(name)) delete headers[name];
    headers.host = url.host;
    headers["accept-encoding"] = "identity"; // the byte cap counts what the page really is
    const upstream = http.request({ host: address, port: url.port || 80, method: req.method, path: url.pathname + url.search, headers, setHost: false, agent: false });
    upstream.on("socket", (socket) => this.track(socket));
    upstream.on("error", () => (res.headersSent ? res.destroy() : this.refuse(res, "the site could not be reached")));
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      cutAtCap(answer, res);
      answer.pipe(res);
    });
    req.pipe(upstream);
  }

  /** `CONNECT host:port` (HTTPS, WSS, and WS through a proxy): checked, pinned, then spliced with a byte cap. */
  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    let address: string;
    let target: URL;
    try {
      target = new URL(`https://${req.url ?? ""}/`);
      if (isBrowserServiceHost(target.hostname)) throw new FetchError("blocked", "the browser's own service calls are not carried");
      address = await this.fetcher.resolvePinned(target.href);
    } catch {
      this.refused++;
      client.end("HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n");
      return;
    }
    const upstream = net.connect({ host: address, port: Number(target.port || 443) });
    this.track(upstream);
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      cutAtCap(upstream, client);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("error", () => client.destroy());
    upstream.once("close", () => client.destroy());
    client.once("close", () => upstream.destroy());
  }
}

/** Both ends are cut once `from` has carried PROXY_MAX_BYTES (a 1 GB download ends there). */
function cutAtCap(from: NodeJS.ReadableStream & { destroy(): void }, to: { destroy(): void }): void {
  let bytes = 0;
  from.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > PROXY_MAX_BYTES) {
      from.destroy();
      to.destroy();
    }
  });
}
