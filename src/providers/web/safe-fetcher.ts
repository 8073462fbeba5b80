import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { AddressPolicy, canonicalIp } from "./address-policy.js";
import { readBody, type ReadBody } from "./body-reader.js";
import type { ContentCoding } from "./content-coding.js";
import { decodeBody } from "./charset.js";
import { abortError, classifyRequestError, FetchError, watchPhase, withTimeout } from "./fetch-errors.js";
import { GuardedConnector, portOf, type LookupFunction } from "./guarded-connector.js";
import { KeyedSemaphore, Semaphore } from "./limiter.js";
import type { ProxySettings } from "./proxy.js";
import { productToken, ROBOTS_MAX_BYTES, RobotsCache, RobotsRules, type RobotsAnswer } from "./robots.js";

export { FetchError, type FetchFailure } from "./fetch-errors.js";
export type { LookupFunction } from "./guarded-connector.js";

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
 * Layers 2 and 3 are guarded-connector.ts, the capped decoding of bodies body-reader.ts.
 *
 * Built on node:http(s) rather than undici: we need to own the moment the socket
 * connects (layer 3) and the decompression (undici's size limit counts compressed
 * bytes, so a 51 KB gzip body decodes to 50 MiB straight through it), and node:http's
 * `createConnection` gives exactly that with no pooling to reason about.
 */

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

/** A page as sent: with `coding`, its body is still gzip/deflate/br-encoded (at most the page cap of the encoded bytes). */
export interface EncodedPage {
  url: string;
  status: number;
  contentType: string;
  body: Uint8Array;
  truncated: boolean;
  coding?: ContentCoding;
  /** Decode at most this many bytes of it (the fetcher's page cap). */
  maxDecodedBytes: number;
}

const TEXT_TYPES = new Set(["text/html", "application/xhtml+xml", "text/plain"]);
/** Linked PDFs (imprints, contact sheets): many servers label them octet-stream; the bytes must start like a PDF. */
const PDF_TYPES = new Set(["application/pdf", "application/x-pdf", "application/octet-stream"]);
/** A PDF's size cap, counted while it downloads (a cut PDF cannot be read). */
export const PDF_MAX_BYTES = 5 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class SafeWebFetcher {
  readonly policy: AddressPolicy;
  readonly userAgent: string;
  private readonly connector: GuardedConnector;
  private readonly maxBodyBytes: number;
  private readonly maxRedirects: number;
  private readonly timeouts: { connect: number; headers: number; body: number; overall: number };
  private readonly perHost: KeyedSemaphore;
  private readonly total: Semaphore;
  private readonly robots: RobotsCache | undefined;
  private readonly token: string;

  constructor(options: SafeFetcherOptions) {
    this.policy = options.policy;
    this.userAgent = options.userAgent;
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
    this.connector = new GuardedConnector({ policy: options.policy, lookup: options.lookup, connectTimeoutMs: this.timeouts.connect, ca: options.ca, proxy: options.proxy });
    this.robots = options.robots === false ? undefined : new RobotsCache((origin, signal) => this.loadRobots(origin, signal), options.now ?? Date.now);
  }

  /**
   * GET a page as text: redirects followed by hand (each hop re-checked, robots.txt
   * obeyed), only HTML/plain-text bodies read, decoded size capped while streaming.
   * Throws FetchError for every refusal and failure.
   */
  async fetchPage(url: string, options: { signal?: AbortSignal; pdf?: boolean } = {}): Promise<FetchedPage> {
    const page = await this.fetchBody(url, options, false);
    const { body, contentType } = page;
    let text: string | undefined;
    return {
      ...page,
      get text() {
        return (text ??= decodeBody(body, contentType).text);
      },
    };
  }

  /**
   * The same GET, with a gzip/deflate/br body left as sent (at most the page cap of it):
   * the crawler hands it to the extraction worker, which decodes it there
   * (`decodeCapped`, at most `maxDecodedBytes`), off the event loop.
   */
  async fetchEncodedPage(url: string, options: { signal?: AbortSignal } = {}): Promise<EncodedPage> {
    return { ...(await this.fetchBody(url, options, true)), maxDecodedBytes: this.maxBodyBytes };
  }

  private async fetchBody(url: string, options: { signal?: AbortSignal; pdf?: boolean }, keepEncoded: boolean): Promise<Omit<EncodedPage, "maxDecodedBytes">> {
    const signal = withTimeout(options.signal, this.timeouts.overall);
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
      const response = await this.exchange(current, signal, options.pdf ? { types: PDF_TYPES, maxBytes: PDF_MAX_BYTES, accept: "application/pdf" } : { types: TEXT_TYPES, maxBytes: this.maxBodyBytes, keepEncoded });
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
      const { body, contentType, coding } = response;
      if (options.pdf && response.truncated) throw new FetchError("too_large", `${current.href} is larger than ${PDF_MAX_BYTES} bytes`);
      if (options.pdf && !Buffer.from(body.subarray(0, 1024)).includes("%PDF-")) throw new FetchError("not_text", `${current.href} is not a PDF`);
      return { url: current.href, status: response.status, contentType, body, truncated: response.truncated, ...(coding ? { coding } : {}) };
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
    const port = portOf(url);
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
    const literal = canonicalIp(url.hostname);
    if (literal !== undefined) return Promise.resolve(literal); // checked by checkUrl
    return this.connector.resolveChecked(url.hostname.replace(/^\[|\]$/g, ""), portOf(url));
  }

  /** For the browser's route handler: robots.txt's answer for this URL (unreadable robots.txt: no). */
  async robotsAllow(raw: string, signal: AbortSignal): Promise<boolean> {
    if (!this.robots) return true;
    const url = this.checkUrl(raw);
    const answer = await this.robots.rulesFor(url.origin, withTimeout(signal, this.timeouts.overall)).catch(() => undefined);
    return answer?.rules.isAllowed(this.token, url.pathname + url.search) ?? false;
  }

  /** One request/response on a fresh, checked connection, within the host and global limits. */
  private async exchange(
    url: URL,
    signal: AbortSignal,
    options: { types: ReadonlySet<string> | "any"; maxBytes: number; accept?: string; keepEncoded?: boolean },
  ): Promise<ReadBody & { status: number; contentType: string; redirect?: string }> {
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
      const socket = await this.connector.connect(url, signal);
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
        return { status, contentType, ...(await readBody(url, response, signal, { maxBytes: options.maxBytes, timeoutMs: this.timeouts.body, keepEncoded: options.keepEncoded })) };
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

  /**
   * RFC 9309 2.3.1: 2xx obey, 4xx allow all, 5xx or unreachable disallow all; ≥ 5 redirects
   * followed. An unreachable or failing robots.txt (timeout, network, 5xx) is "disallow all"
   * for this attempt only and is not kept: a site that was slow during a search must be
   * tried again by the retry, not refused for 24 hours from memory.
   */
  private async loadRobots(origin: string, callerSignal: AbortSignal): Promise<RobotsAnswer> {
    const signal = withTimeout(callerSignal, this.timeouts.overall);
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
        if (response.status >= 200 && response.status < 300) return { rules: await RobotsRules.parseYielding(decodeBody(response.body, "text/plain; charset=utf-8").text), keep: true };
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
