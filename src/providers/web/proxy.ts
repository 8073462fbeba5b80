import net from "node:net";
import { canonicalIp, parseAddress } from "./address-policy.js";

/**
 * The operator's outgoing proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, upper or lower
 * case), as curl and undici's EnvHttpProxyAgent read them: `HTTPS_PROXY` for https URLs,
 * `HTTP_PROXY` for http ones, and `NO_PROXY` a comma list of host names (matching the
 * name and its subdomains; a leading dot or `*.` is allowed), `host:port` entries, IP
 * addresses or CIDR ranges, or `*` for everything.
 */
export interface ProxySettings {
  http?: string;
  https?: string;
  noProxy?: readonly string[];
}

interface NoProxyEntry {
  host?: string;
  port?: number;
  cidr?: [ReturnType<typeof parseAddress> & object, number];
  all?: boolean;
}

export class ProxyRoutes {
  private readonly http: URL | undefined;
  private readonly https: URL | undefined;
  private readonly exceptions: NoProxyEntry[];

  constructor(settings: ProxySettings = {}) {
    this.http = settings.http ? new URL(settings.http) : undefined;
    this.https = settings.https ? new URL(settings.https) : undefined;
    this.exceptions = (settings.noProxy ?? []).map(parseNoProxy).filter((e): e is NoProxyEntry => e !== undefined);
  }

  get enabled(): boolean {
    return Boolean(this.http || this.https);
  }

  /** The proxy for this URL, or undefined for a direct connection. */
  proxyFor(url: URL): URL | undefined {
    const proxy = url.protocol === "https:" ? this.https : this.http;
    if (!proxy) return undefined;
    const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const address = parseAddress(host);
    for (const entry of this.exceptions) {
      if (entry.all) return undefined;
      if (entry.port !== undefined && entry.port !== port) continue;
      if (entry.cidr && address && address.kind() === entry.cidr[0].kind() && address.match(entry.cidr[0] as never, entry.cidr[1])) return undefined;
      if (entry.host && (host === entry.host || host.endsWith(`.${entry.host}`))) return undefined;
    }
    return proxy;
  }
}

function parseNoProxy(raw: string): NoProxyEntry | undefined {
  const value = raw.trim().toLowerCase();
  if (!value) return undefined;
  if (value === "*") return { all: true };
  if (value.includes("/")) {
    const [address, bits] = value.split("/");
    const parsed = parseAddress(address!);
    return parsed ? { cidr: [parsed, Number(bits)] } : undefined;
  }
  const literal = canonicalIp(value.replace(/^\[|\]$/g, ""));
  if (literal) return { cidr: [parseAddress(literal)!, literal.includes(":") ? 128 : 32] };
  const hostPort = /^(.+?)(?::(\d+))?$/.exec(value)!;
  const host = hostPort[1]!.replace(/^\*?\./, "");
  return { host, port: hostPort[2] ? Number(hostPort[2]) : undefined };
}

export class ProxyError extends Error {
  override name = "ProxyError";
}

/**
 * Open a tunnel through an HTTP proxy with CONNECT to `address:port` — the IP address
 * the fetcher resolved and checked itself, never a name the proxy would resolve again —
 * and hand back the socket once the proxy answered 2xx. Plain-http sites go through the
 * same tunnel, so the proxy cannot be steered to another address by a DNS answer.
 */
export function openTunnel(proxy: URL, address: string, port: number, onSocket: (socket: net.Socket) => void): Promise<net.Socket> {
  const authority = address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
  const headers = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (proxy.username || proxy.password) {
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers.push(`Proxy-Authorization: Basic ${Buffer.from(credentials).toString("base64")}`);
  }
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: proxy.hostname.replace(/^\[|\]$/g, ""), port: Number(proxy.port || 80) });
    onSocket(socket);
    let head = Buffer.alloc(0);
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 16 * 1024) fail(new ProxyError(`the proxy ${proxy.host} sent an oversized answer to CONNECT`));
        return;
      }
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("close", onClose);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString("latin1"))?.[1];
      if (!status || status[0] !== "2") return fail(new ProxyError(`the proxy ${proxy.host} refused CONNECT ${authority} (${status ? `HTTP ${status}` : "not HTTP"})`));
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    const onError = (err: NodeJS.ErrnoException) => fail(new ProxyError(`cannot reach the proxy ${proxy.host} (${err.code ?? err.message})`));
    const onClose = () => fail(new ProxyError(`the proxy ${proxy.host} closed the connection before answering CONNECT`));
    socket.on("data", onData);
    socket.once("error", onError);
    socket.once("close", onClose);
    socket.once("connect", () => socket.write(headers.join("\r\n") + "\r\n\r\n"));
  });
}
