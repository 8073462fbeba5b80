import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { FetchError, SafeWebFetcher, type LookupFunction } from "../../../src/providers/web/safe-fetcher.js";
import { ConfigError, loadServerConfig } from "../../../src/services/config.js";
import { closeAfterEach } from "../../helpers/close-after-each.js";
import { tempDir } from "../../helpers/data-dir.js";
import { fixtureLookup, startFixtureSites } from "../../helpers/fixture-sites.js";

/**
 * A real HTTP CONNECT proxy on 127.0.0.1: it records what it was asked and the
 * Proxy-Authorization it got, refuses when told to, and otherwise pipes bytes to the
 * requested address (only ever 127.0.0.1 here).
 */
async function startProxy(options: { refuse?: boolean } = {}) {
  const connects: string[] = [];
  const auth: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      client.off("data", onData);
      const lines = head.subarray(0, end).toString("latin1").split("\r\n");
      const [method, authority] = lines[0]!.split(" ");
      connects.push(`${method} ${authority}`);
      const proxyAuth = lines.find((l) => /^proxy-authorization:/i.test(l));
      if (proxyAuth) auth.push(proxyAuth.slice(proxyAuth.indexOf(":") + 1).trim());
      if (options.refuse || method !== "CONNECT") return client.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
      const [host, port] = [authority!.slice(0, authority!.lastIndexOf(":")).replace(/^\[|\]$/g, ""), Number(authority!.slice(authority!.lastIndexOf(":") + 1))];
      if (host !== "127.0.0.1") return client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      const upstream = net.connect({ host, port }, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on("close", () => sockets.delete(upstream));
      upstream.on("error", () => client.destroy());
    };
    client.on("data", onData);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  running.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connects, auth };
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((stop) => stop()));
});

const fetcher = (proxy: { http?: string; https?: string; noProxy?: string[] }, extra: { lookup?: LookupFunction; ca?: string[] } = {}) =>
  new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: "outreach/0.1", lookup: extra.lookup ?? fixtureLookup, proxy, ca: extra.ca });

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error("expected a FetchError");
}

describe("SafeWebFetcher through HTTP_PROXY / HTTPS_PROXY", () => {
  it("tunnels to the address it resolved and checked itself, never to a name", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": "<p>through the proxy</p>", "/robots.txt": "User-agent: *\nAllow: /" } });
    const proxy = await startProxy();
    const page = await fetcher({ http: proxy.url }).fetchPage(sites.url("shop.de"));
    expect(page.text).toBe("<p>through the proxy</p>");
    expect(proxy.connects).toEqual([`CONNECT 127.0.0.1:${sites.port}`, `CONNECT 127.0.0.1:${sites.port}`]);
    // The site still sees its own name: virtual hosting works through the tunnel.
    expect(sites.requests.map((r) => `${r.host} ${r.path}`)).toEqual(["shop.de /robots.txt", "shop.de /"]);
  });

  it("refuses a target that resolves to a forbidden address before the proxy hears of it", async () => {
    const proxy = await startProxy();
    // The name resolves to a private address (never contacted: the check refuses it first).
    const internal: LookupFunction = (_h, _o, callback) => setImmediate(() => callback(null, [{ address: "10.20.30.40", family: 4 }]));
    const f = fetcher({ http: proxy.url, https: proxy.url }, { lookup: internal });
    expect((await failure(f.fetchPage("http://intranet.shop.de/"))).reason).toBe("blocked");
    expect((await failure(f.fetchPage("http://169.254.169.254/latest/meta-data/"))).reason).toBe("blocked");
    expect((await failure(f.fetchPage("https://[::ffff:10.0.0.1]/"))).reason).toBe("blocked");
    expect(proxy.connects).toEqual([]);
  });

  it("goes direct for NO_PROXY hosts, and says so when the proxy refuses", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": "<p>direct</p>" }, "other.de": { "/": "<p>x</p>" } });
    const proxy = await startProxy();
    const direct = await fetcher({ http: proxy.url, noProxy: ["localhost", ".shop.de"] }).fetchPage(sites.url("shop.de"));
    expect(direct.text).toBe("<p>direct</p>");
    expect(proxy.connects).toEqual([]);
    const refusing = await startProxy({ refuse: true });
    const err = await failure(fetcher({ http: refusing.url }, {}).fetchPage(sites.url("other.de")));
    expect(err.reason).toBe("network");
    expect(err.message).toContain("403");
  });

  it("sends Basic credentials from the proxy URL, and carries TLS to the site's name through the tunnel", async () => {
    const dir = tempDir();
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=secure.de", "-addext", "subjectAltName=DNS:secure.de", "-days", "1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    const cert = readFileSync(join(dir, "cert.pem"), "utf8");
    const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => res.end(req.url === "/robots.txt" ? "" : "<p>secure</p>"));
    closeAfterEach(server as never);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const proxy = await startProxy();
    const withUser = proxy.url.replace("http://", "http://ops:s%3Acret@");
    const page = await fetcher({ https: withUser }, { ca: [cert] }).fetchPage(`https://secure.de:${port}/`);
    expect(page.text).toBe("<p>secure</p>");
    expect(proxy.auth[0]).toBe(`Basic ${Buffer.from("ops:s:cret").toString("base64")}`);
  });
});

describe("proxy settings", () => {
  it("reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY in either case, and refuses what it cannot use", () => {
    expect(loadServerConfig({ HTTPS_PROXY: "http://proxy.corp:3128", http_proxy: "proxy.corp:8080", no_proxy: "localhost, .intra" }).proxy).toEqual({
      https: "http://proxy.corp:3128/",
      http: "http://proxy.corp:8080/",
      noProxy: ["localhost", ".intra"],
    });
    expect(loadServerConfig({ HTTPS_PROXY: "" }).proxy).toEqual({ http: undefined, https: undefined, noProxy: [] });
    expect(() => loadServerConfig({ HTTPS_PROXY: "socks5://proxy:1080" })).toThrow(ConfigError);
    expect(() => loadServerConfig({ HTTP_PROXY: "http://proxy:3128/path" })).toThrow(/HTTP_PROXY/);
  });
});
