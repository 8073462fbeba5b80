import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import type { Duplex } from "node:stream";
import zlib from "node:zlib";
import { AddressPolicy, canonicalIp } from "./address-policy.js";
import { decodeBody } from "./charset.js";
import { KeyedSemaphore, Semaphore } from "./limiter.js";
import { openTunnel, ProxyError, ProxyRoutes, type ProxySettings } from "./proxy.js";
import { productToken, ROBOTS_MAX_BYTES, RobotsCache, RobotsRules, type RobotsAnswer } from "./robots.js";

/**
 * Fetching strangers' websites without letting them reach inside our network (SSRF),
 * docs/api.md, "Safe fetching". Three layers, each sufficient against a different trick:
 *
 * 1. The URL is checked before anything happens: http/https only, ports 80/443 (other
 *    ports only towards the operator's allow-list), no userinfo, and IP-literal hosts in
 *    every form (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) classified up front,
 *    because Node never calls `lookup` for literals.
 * 2. The DNS lookup is wrapped: if any resolved address is not allowed, the name is
 *    refused (answering in array form when Node asks with `{all: true}`).
 * 3. We create the TCP socket ourselves and check `socket.remoteAddress` once it is
 *    connected, before a single byte (not even a TLS ClientHello) is written; a socket
 *    to a forbidden address is destroyed. This also defeats DNS rebinding, where the
 *    name resolves to a public address for the check and a private one for the connect.
 *
 * Built on node:http(s) rather than undici: we need to own the moment the socket
 * connects (layer 3) and the decompression (undici's size limit counts compressed
 * bytes, so a 51 KB gzip body decodes to 50 MiB straight through it), and node:http's
 * `createConnection` gives exactly that with no pooling to reason about.
 */

export type FetchFailure =
  | "bad_url"
  | "blocked"
  | "robots"
  | "timeout"
  | "too_large"
  | "not_text"
  | "http_status"
  | "too_many_redirects"
  | "redirect_loop"
  | "network"
  | "tls"
  | "unreadable"
  | "aborted";

export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    readonly reason: FetchFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export type LookupFunction = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface SafeFetcherOptions {
  /** Which addresses may be reached (public unicast plus the operator's CIDRs). */
  policy: AddressPolicy;
  userAgent: string;
  /** The resolver under the guard (tests resolve names to 127.0.0.1 with it; never real DNS). */
  lookup?: LookupFunction;
  maxBodyBytes?: number;
  maxRedirects?: number;
  perHostConnections?: number;
  totalConnections?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  overallTimeoutMs?: number;
  /** Obey robots.txt (on by default; benches of raw fetching may turn it off). */
  robots?: boolean;
  now?: () => number;
  /** Extra trusted CA certificates (PEM): tests with a self-signed fixture site. */
  ca?: string[];
  /** The operator's outgoing proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxySettings;
}

export interface FetchedPage {
  /** The final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** The body's bytes (content-encoding undone), at most the size cap. */
  body: Uint8Array;
  /** The body as text (charset sniffed), decoded when first read. */
  readonly text: string;
  /** The decoded body reached the size cap and was cut there. */
  truncated: boolean;
}

const TEXT_TYPES = new Set(["text/html", "application/xhtml+xml", "text/plain"]);
/** Linked PDFs (imprints, contact sheets): many servers label them octet-stream; the bytes must start like a PDF. */
const PDF_TYPES = new Set(["application/pdf", "application/x-pdf", "application/octet-stream"]);
/** A PDF's size cap, counted while it downloads (a cut PDF cannot be read). */
export const PDF_MAX_BYTES = 5 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

const systemLookup: LookupFunction = (hostname, options, callback) => dnsLookup(hostname, options, callback);

export class SafeWebFetcher {
  readonly policy: AddressPolicy;
  readonly userAgent: string;
  private readonly lookup: LookupFunction;
  private readonly maxBodyBytes: number;
  private readonly maxRedirects: number;
  private readonly timeouts: { connect: number; headers: number; body: number; overall: number };
  private readonly perHost: KeyedSemaphore;
  private readonly total: Semaphore;
  private readonly robots: RobotsCache | undefined;
  private readonly token: string;
  private readonly ca: string[] | undefined;
  private readonly proxies: ProxyRoutes;

  constructor(options: SafeFetcherOptions) {
    this.policy = options.policy;
    this.userAgent = options.userAgent;
    this.lookup = options.lookup ?? systemLookup;
    this.maxBodyBytes = options.maxBodyBytes ?? 2 * 1024 * 1024;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.timeouts = {
      connect: options.connectTimeoutMs ?? 5_000,
      headers: options.headersTimeoutMs ?? 10_000,
      body: options.bodyTimeoutMs ?? 10_000,
      overall: options.overallTimeoutMs ?? 15_000,
    };
    this.perHost = new KeyedSemaphore(options.perHostConnections ?? 2);
    this.total = new Semaphore(options.totalConnections ?? 8);
    this.token = productToken(options.userAgent);
    this.ca = options.ca;
    this.proxies = new ProxyRoutes(options.proxy);
    this.robots = options.robots === false ? undefined : new RobotsCache((origin, signal) => this.loadRobots(origin, signal), options.now ?? Date.now);
  }

  /**
   * GET a page as text: redirects followed by hand (each hop re-checked, robots.txt
   * obeyed), only HTML/plain-text bodies read, decoded size capped while streaming.
   * Throws FetchError for every refusal and failure.
   */
  async fetchPage(url: string, options: { signal?: AbortSignal; pdf?: boolean } = {}): Promise<FetchedPage> {
    const signal = combine(options.signal, this.timeouts.overall);
    const seen = new Set<string>();
    let current = this.checkUrl(url);
    for (let hop = 0; ; hop++) {
      seen.add(current.href);
      if (this.robots) {
        const answer = await this.robots.rulesFor(current.origin, signal).catch((err: unknown) => {
          throw err instanceof FetchError ? err : abortError(signal);
        });
        if (!answer.rules.isAllowed(this.token, current.pathname + current.search)) {
          // An unreachable robots.txt means the site is: report why (timeout, TLS…), not "robots".
          if (answer.failure instanceof FetchError) throw new FetchError(answer.failure.reason, `robots.txt of ${current.host} could not be read: ${answer.failure.message}`);
          throw new FetchError("robots", `robots.txt of ${current.host} disallows ${current.pathname}`);
        }
      }
      const response = await this.exchange(current, signal, options.pdf ? { types: PDF_TYPES, maxBytes: PDF_MAX_BYTES, accept: "application/pdf" } : { types: TEXT_TYPES, maxBytes: this.maxBodyBytes });
      if (response.redirect) {
        const next = this.checkUrl(new URL(response.redirect, current).href);
        if (seen.has(next.href)) throw new FetchError("redirect_loop", `redirect loop at ${next.href}`);
        if (hop + 1 > this.maxRedirects) throw new FetchError("too_many_redirects", `more than ${this.maxRedirects} redirects from ${url}`);
        current = next;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        throw new FetchError("http_status", `${current.href} answered HTTP ${response.status}`, response.status);
      }
      const { body, contentType } = response;
      if (options.pdf && response.truncated) throw new FetchError("too_large", `${current.href} is larger than ${PDF_MAX_BYTES} bytes`);
      if (options.pdf && !Buffer.from(body.subarray(0, 1024)).includes("%PDF-")) throw new FetchError("not_text", `${current.href} is not a PDF`);
      let text: string | undefined;
      return {
        url: current.href,
        status: response.status,
        contentType,
        body,
        truncated: response.truncated,
        get text() {
          return (text ??= decodeBody(body, contentType).text);
        },
      };
    }
  }

  /** Layer 1: the URL alone. Returns the parsed URL with IP-literal hosts canonicalised. */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new FetchError("bad_url", `not a URL: ${JSON.stringify(raw.slice(0, 200))}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchError("bad_url", `only http and https URLs are fetched (got ${url.protocol})`);
    if (url.username || url.password) throw new FetchError("bad_url", "URLs with a user name or password are not fetched");
    const literal = canonicalIp(url.hostname);
    const port = url.port === "" ? DEFAULT_PORTS[url.protocol]! : Number(url.port);
    if (literal !== undefined && !this.policy.isAllowed(literal)) throw new FetchError("blocked", `${url.hostname} is not a public address`);
    if (port !== 80 && port !== 443) {
      if (!this.policy.hasAllowList || (literal !== undefined && !this.policy.isAllowListed(literal))) {
        throw new FetchError("blocked", `port ${port} is not fetched (only 80 and 443)`);
      }
    }
    url.hash = "";
    return url;
  }

  /**
   * For the browser's proxy: the same three checks as a fetch (URL, every resolved address,
   * ports), resolved once; the address returned is the one to connect to (pinned).
   */
  resolvePinned(raw: string): Promise<string> {
    const url = this.checkUrl(raw);
    const port = url.port === "" ? DEFAULT_PORTS[url.protocol]! : Number(url.port);
    const literal = canonicalIp(url.hostname);
    if (literal !== undefined) return Promise.resolve(literal); // checked by checkUrl
    return new Promise((resolve, reject) => {
      this.guardedLookup(port)(url.hostname.replace(/^\[|\]$/g, ""), { all: false }, (err, address) => {
        if (err) reject(new FetchError((err as NodeJS.ErrnoException).code === "EBLOCKED" ? "blocked" : "network", String((err as Error).message)));
        else resolve(address as string);
      });
    });
  }

  /** For the browser's route handler: robots.txt's answer for this URL (unreadable robots.txt: no). */
  async robotsAllow(raw: string, signal: AbortSignal): Promise<boolean> {
    if (!this.robots) return true;
    const url = this.checkUrl(raw);
    const answer = await this.robots.rulesFor(url.origin, combine(signal, this.timeouts.overall)).catch(() => undefined);
    return answer?.rules.isAllowed(this.token, url.pathname + url.search) ?? false;
  }

  /** Layer 2: resolve, and refuse the name if any of its addresses is not allowed. */
  private guardedLookup(port: number) {
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

  private addressAllowed(address: string, port: number): boolean {
    if (port !== 80 && port !== 443) return this.policy.isAllowListed(address);
    return this.policy.isAllowed(address);
  }

  /** Layer 3: our own socket, checked once connected and before anything is written. */
  private connect(url: URL, signal: AbortSignal): Promise<Duplex> {
    const port = url.port === "" ? DEFAULT_PORTS[url.protocol]! : Number(url.port);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const proxy = this.proxies.proxyFor(url);
    if (proxy) return this.connectViaProxy(url, proxy, host, port, signal);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port, lookup: this.guardedLookup(port) as never, autoSelectFamily: false });
      const done = watchPhase(signal, this.timeouts.connect, () => new FetchError("timeout", `connecting to ${url.host} took longer than ${this.timeouts.connect} ms`), (err) => fail(err));
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
    const done = watchPhase(signal, this.timeouts.connect, () => new FetchError("timeout", `connecting to ${url.host} through the proxy took longer than ${this.timeouts.connect} ms`), (err) => {
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

  /** Layer 2 on its own: the name's addresses, all of them allowed, else refused. */
  private resolveChecked(host: string, port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      this.guardedLookup(port)(host, { all: true }, (...args: unknown[]) => {
        const [err, addresses] = args as [NodeJS.ErrnoException | null, LookupAddress[]];
        if (err) return reject(err.code === "EBLOCKED" ? new FetchError("blocked", err.message) : new FetchError("network", `cannot resolve ${host} (${err.code ?? "error"})`));
        resolve(addresses[0]!.address);
      });
    });
  }

  /** One request/response on a fresh, checked connection, within the host and global limits. */
  private async exchange(
    url: URL,
    signal: AbortSignal,
    options: { types: ReadonlySet<string> | "any"; maxBytes: number; accept?: string },
  ): Promise<{ status: number; contentType: string; body: Uint8Array; truncated: boolean; redirect?: string }> {
    // Host slot first, then a global one: a request waiting for its busy host must not
    // sit on a global slot that a request to another host could use.
    const releaseHost = await this.perHost.acquire(url.host, signal).catch(() => {
      throw abortError(signal);
    });
    let releaseTotal: (() => void) | undefined;
    try {
      releaseTotal = await this.total.acquire(signal).catch(() => {
        throw abortError(signal);
      });
      const socket = await this.connect(url, signal);
      const response = await this.sendRequest(url, socket, signal, options.accept);
      try {
        const status = response.statusCode ?? 0;
        const contentType = String(response.headers["content-type"] ?? "");
        if (REDIRECTS.has(status) && response.headers.location) return { status, contentType, body: new Uint8Array(), truncated: false, redirect: response.headers.location };
        if (status < 200 || status > 299) return { status, contentType, body: new Uint8Array(), truncated: false };
        const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
        if (options.types !== "any" && mediaType !== "" && !options.types.has(mediaType)) {
          throw new FetchError("not_text", `${url.href} is ${mediaType}, not ${options.types === PDF_TYPES ? "a PDF" : "a web page"}`);
        }
        const declared = Number(response.headers["content-length"]);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          throw new FetchError("too_large", `${url.href} declares ${declared} bytes (limit ${options.maxBytes})`);
        }
        const { body, truncated } = await this.readBody(url, response, signal, options.maxBytes);
        return { status, contentType, body, truncated };
      } finally {
        response.destroy();
        socket.destroy();
      }
    } finally {
      releaseTotal?.();
      releaseHost();
    }
  }

  private sendRequest(url: URL, socket: Duplex, signal: AbortSignal, accept = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const transport = url.protocol === "https:" ? https : http;
      const request = transport.request(url, {
        method: "GET",
        // No agent: node:http then uses exactly the socket we connected and checked.
        createConnection: () => socket as net.Socket,
        headers: {
          "user-agent": this.userAgent,
          accept,
          "accept-encoding": "gzip, deflate, br",
          "accept-language": "en;q=0.9, *;q=0.5",
          connection: "close",
        },
      });
      const cleanup = watchPhase(signal, this.timeouts.headers, () => new FetchError("timeout", `${url.host} sent no headers within ${this.timeouts.headers} ms`), (err) => fail(err));
      const fail = (err: Error) => {
        cleanup();
        request.destroy();
        socket.destroy();
        reject(err);
      };
      request.once("error", (err: NodeJS.ErrnoException) => fail(err instanceof FetchError ? err : classifyRequestError(url, err)));
      request.once("response", (response) => {
        cleanup();
        resolve(response);
      });
      request.end();
    });
  }

  /** The decoded body, counted while streaming: decompression stops at the cap, not after. */
  private readBody(url: URL, response: IncomingMessage, signal: AbortSignal, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
    const encoding = String(response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
    // Tolerate streams that end early (servers that cut off): keep what decoded.
    const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
    let decoded: NodeJS.ReadableStream & { destroy(): void };
    if (encoding === "gzip" || encoding === "x-gzip") decoded = response.pipe(zlib.createGunzip(flush));
    else if (encoding === "deflate") decoded = response.pipe(zlib.createInflate(flush));
    else if (encoding === "br") decoded = response.pipe(zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    else if (encoding === "identity" || encoding === "") decoded = response;
    else return Promise.reject(new FetchError("not_text", `${url.href} uses the unsupported content encoding ${encoding}`));

    // A declared length of an uncompressed body sizes the buffer once: no chunk list and
    // no concatenation doubling a 2 MiB page while it is read (16 hostile pages at once).
    const declared = Number(response.headers["content-length"]);
    const exact = decoded === response && Number.isInteger(declared) && declared > 0 && declared <= maxBytes ? Buffer.allocUnsafeSlow(declared) : undefined;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const stopWatching = watchPhase(signal, this.timeouts.body, () => new FetchError("timeout", `${url.host} did not finish the body within ${this.timeouts.body} ms`), (err) => fail(err));
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        stopWatching();
        decoded.destroy();
        response.destroy();
        return true;
      };
      const finish = (truncated: boolean) => {
        if (!settle()) return;
        resolve({ body: exact ? exact.subarray(0, size) : Buffer.concat(chunks, size), truncated });
      };
      const fail = (err: Error) => {
        if (settle()) reject(err);
      };
      decoded.on("data", (chunk: Buffer) => {
        if (settled) return;
        const room = (exact ? exact.length : maxBytes) - size;
        const take = chunk.length >= room ? chunk.subarray(0, room) : chunk;
        if (exact) take.copy(exact, size);
        else chunks.push(take);
        size += take.length;
        if (chunk.length >= room) return finish(!exact || chunk.length > room);
      });
      decoded.once("end", () => finish(false));
      decoded.once("error", (err: Error) => {
        // A body cut off mid-way still gives us its decoded prefix.
        if (size > 0) return finish(true);
        fail(new FetchError("network", `${url.host}: unreadable body (${err.message})`));
      });
      response.once("aborted", () => (size > 0 ? finish(true) : fail(new FetchError("network", `${url.host} closed the connection`))));
    });
  }

  /**
   * RFC 9309 2.3.1: 2xx obey, 4xx allow all, 5xx or unreachable disallow all; ≥ 5 redirects
   * followed. An unreachable or failing robots.txt (timeout, network, 5xx) is "disallow all"
   * for this attempt only and is not kept: a site that was slow during a search must be
   * tried again by the retry, not refused for 24 hours from memory.
   */
  private async loadRobots(origin: string, callerSignal: AbortSignal): Promise<RobotsAnswer> {
    const signal = combine(callerSignal, this.timeouts.overall);
    let current: URL;
    try {
      current = this.checkUrl(`${origin}/robots.txt`);
    } catch {
      return { rules: RobotsRules.disallowAll(), keep: true };
    }
    try {
      for (let hop = 0; hop <= this.maxRedirects; hop++) {
        const response = await this.exchange(current, signal, { types: "any", maxBytes: ROBOTS_MAX_BYTES });
        if (response.redirect) {
          current = this.checkUrl(new URL(response.redirect, current).href);
          continue;
        }
        if (response.status >= 200 && response.status < 300) return { rules: RobotsRules.parse(decodeBody(response.body, "text/plain; charset=utf-8").text), keep: true };
        if (response.status >= 400 && response.status < 500) return { rules: RobotsRules.allowAll(), keep: true };
        return { rules: RobotsRules.disallowAll(), keep: false };
      }
      return { rules: RobotsRules.allowAll(), keep: true }; // RFC 9309: more than 5 redirects → treat as unavailable (4xx)
    } catch (err) {
      if (err instanceof FetchError && err.reason === "too_large") return { rules: RobotsRules.allowAll(), keep: true };
      // A forbidden address is the page's failure too: say so rather than "robots".
      if (err instanceof FetchError && err.reason === "blocked") throw err;
      // The caller gave up: nothing was learnt about the site.
      if (callerSignal.aborted) throw abortError(callerSignal);
      return { rules: RobotsRules.disallowAll(), keep: false, failure: err instanceof FetchError ? err : undefined };
    }
  }
}

/** Certificate and handshake failures are told apart from other network errors: the user can act on them. */
const TLS_CODES = /^(?:CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|HOSTNAME_MISMATCH|EPROTO$)/;

function classifyRequestError(url: URL, err: NodeJS.ErrnoException): FetchError {
  const code = err.code ?? "";
  if (TLS_CODES.test(code)) return new FetchError("tls", `${url.host}: TLS failed (${code}${err.message && !err.message.includes(code) ? `: ${err.message}` : ""})`);
  return new FetchError("network", `${url.host}: ${code || err.message}`);
}

function combine(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * One phase's limits (connect, headers, body): `fail` with the phase's own timeout error
 * after `ms`, or with the abort error when `signal` aborts. Returns what stops both.
 */
function watchPhase(signal: AbortSignal, ms: number, timeoutError: () => FetchError, fail: (err: FetchError) => void): () => void {
  const timer = setTimeout(() => fail(timeoutError()), ms);
  const onAbort = () => fail(abortError(signal));
  signal.addEventListener("abort", onAbort, { once: true });
  return () => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  };
}

function abortError(signal: AbortSignal): FetchError {
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === "TimeoutError" ? new FetchError("timeout", "the page took longer than the time allowed") : new FetchError("aborted", "the fetch was cancelled");
}
