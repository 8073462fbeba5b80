import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import net from "node:net";
import tls from "node:tls";
import type { Duplex } from "node:stream";
import type { AddressPolicy } from "./address-policy.js";
import { FetchError, watchPhase } from "./fetch-errors.js";
import { openTunnel, ProxyError, ProxyRoutes, type ProxySettings } from "./proxy.js";

export type LookupFunction = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

const systemLookup: LookupFunction = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** The port a checked URL connects to. */
export function portOf(url: URL): number {
  return url.port === "" ? DEFAULT_PORTS[url.protocol]! : Number(url.port);
}

export interface GuardedConnectorOptions {
  policy: AddressPolicy;
  lookup?: LookupFunction;
  connectTimeoutMs: number;
  ca?: string[];
  proxy?: ProxySettings;
}

/**
 * Layers 2 and 3 of safe fetching (safe-fetcher.ts): every address a name resolves to is
 * checked (the name is refused if any is not allowed), and the socket we create ourselves
 * is checked once connected, before a byte is written. Through the operator's proxy, the
 * proxy is asked to CONNECT to the checked address, never to the name.
 */
export class GuardedConnector {
  private readonly policy: AddressPolicy;
  private readonly lookup: LookupFunction;
  private readonly connectTimeoutMs: number;
  private readonly ca: string[] | undefined;
  private readonly proxies: ProxyRoutes;

  constructor(options: GuardedConnectorOptions) {
    this.policy = options.policy;
    this.lookup = options.lookup ?? systemLookup;
    this.connectTimeoutMs = options.connectTimeoutMs;
    this.ca = options.ca;
    this.proxies = new ProxyRoutes(options.proxy);
  }

  /** Layer 2: resolve, and refuse the name if any of its addresses is not allowed. */
  guardedLookup(port: number) {
    return (hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
      this.lookup(hostname, { all: true, family: options.family }, (err, addresses) => {
        if (err) return callback(err);
        const list = addresses ?? [];
        const bad = list.find((a) => !this.addressAllowed(a.address, port));
        if (list.length === 0 || bad) {
          const error = Object.assign(new Error(`${hostname} resolves to an address that is not public`), { code: "EBLOCKED" });
          return callback(error);
        }
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      });
    };
  }

  addressAllowed(address: string, port: number): boolean {
    if (port !== 80 && port !== 443) return this.policy.isAllowListed(address);
    return this.policy.isAllowed(address);
  }

  /** Layer 2 on its own: the name's first address, all of them allowed, else refused. */
  resolveChecked(host: string, port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      this.guardedLookup(port)(host, { all: true }, (...args: unknown[]) => {
        const [err, addresses] = args as [NodeJS.ErrnoException | null, LookupAddress[]];
        if (err) return reject(err.code === "EBLOCKED" ? new FetchError("blocked", err.message) : new FetchError("network", `cannot resolve ${host} (${err.code ?? "error"})`));
        resolve(addresses[0]!.address);
      });
    });
  }

  /** Layer 3: our own socket, checked once connected and before anything is written. */
  connect(url: URL, signal: AbortSignal): Promise<Duplex> {
    const port = portOf(url);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const proxy = this.proxies.proxyFor(url);
    if (proxy) return this.connectViaProxy(url, proxy, host, port, signal);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port, lookup: this.guardedLookup(port) as never, autoSelectFamily: false });
      const done = watchPhase(signal, this.connectTimeoutMs, () => new FetchError("timeout", `connecting to ${url.host} took longer than ${this.connectTimeoutMs} ms`), (err) => fail(err));
      const fail = (err: Error) => {
        done();
        socket.destroy();
        reject(err);
      };
      const onError = (err: NodeJS.ErrnoException) => {
        fail(err.code === "EBLOCKED" ? new FetchError("blocked", err.message) : new FetchError("network", `cannot connect to ${url.host} (${err.code ?? "error"})`));
      };
      socket.once("error", onError);
      socket.once("connect", () => {
        const remote = socket.remoteAddress ?? "";
        if (!this.addressAllowed(remote, port)) return fail(new FetchError("blocked", `${url.hostname} connected to an address that is not public`));
        done();
        socket.off("error", onError);
        resolve(this.secure(url, host, socket));
      });
    });
  }

  /** The checked socket as the URL's scheme needs it: as is for http, under TLS for https. */
  private secure(url: URL, host: string, socket: net.Socket): Duplex {
    // From here the HTTP request (or the TLS socket on top) reports errors; this keeps a
    // late error on the raw socket from becoming an uncaught exception.
    socket.on("error", () => undefined);
    if (url.protocol === "http:") return socket;
    const servername = net.isIP(host) ? undefined : host;
    return tls.connect({ socket, servername, ALPNProtocols: ["http/1.1"], ...(this.ca ? { ca: this.ca } : {}) });
  }

  /**
   * Through the operator's proxy: the target is resolved and checked here first (layers 1
   * and 2), then the proxy is asked to CONNECT to that checked IP address, never to the
   * name, so it cannot be steered elsewhere by a second DNS answer (layer 3's role).
   */
  private async connectViaProxy(url: URL, proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Duplex> {
    let socket: net.Socket | undefined;
    let stop: (err: FetchError) => void = () => undefined;
    const stopped = new Promise<never>((_resolve, reject) => (stop = reject));
    stopped.catch(() => undefined);
    const done = watchPhase(signal, this.connectTimeoutMs, () => new FetchError("timeout", `connecting to ${url.host} through the proxy took longer than ${this.connectTimeoutMs} ms`), (err) => {
      socket?.destroy();
      stop(err);
    });
    try {
      const address = net.isIP(host) ? host : await Promise.race([this.resolveChecked(host, port), stopped]);
      if (!this.addressAllowed(address, port)) throw new FetchError("blocked", `${url.hostname} is not a public address`);
      const tunnel = await Promise.race([openTunnel(proxy, address, port, (s) => (socket = s)), stopped]);
      return this.secure(url, host, tunnel);
    } catch (err) {
      socket?.destroy();
      if (err instanceof FetchError) throw err;
      throw new FetchError("network", err instanceof ProxyError ? err.message : `cannot connect to ${url.host} through the proxy`);
    } finally {
      done();
    }
  }
}
