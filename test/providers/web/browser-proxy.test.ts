import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import tls from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { BrowserProxy } from "../../../src/providers/web/browser-proxy.js";
import { SafeWebFetcher, type LookupFunction } from "../../../src/providers/web/safe-fetcher.js";
import { closeAfterEach } from "../../helpers/close-after-each.js";
import { tempDir } from "../../helpers/data-dir.js";

/**
 * The browser's forward proxy (issue 26) spoken to as Chromium speaks to it: CONNECT for
 * HTTPS (and WebSockets), absolute-form requests for plain HTTP. Every listener is on
 * 127.0.0.0/8; the allowed sites are on 127.0.0.2 and 127.0.0.4, the forbidden address is
 * 127.0.0.3 (not in the allow list), where a listener counts connections.
 */
const proxies: BrowserProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});

async function listen(server: Server | net.Server, host: string, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** A listener on a forbidden address that counts every connection made to it. */
async function forbiddenListener(port: number) {
  const counter = { connections: 0 };
  const server = createServer((_req, res) => res.end("reached the forbidden address"));
  server.on("connection", () => counter.connections++);
  closeAfterEach(server);
  await listen(server, "127.0.0.3", port);
  return counter;
}

async function startProxy(allow: string, lookup: LookupFunction, options: { robots?: boolean } = {}) {
  const fetcher = new SafeWebFetcher({ policy: new AddressPolicy([allow]), userAgent: "outreach/0.1", lookup, robots: options.robots });
  const proxy = new BrowserProxy(fetcher);
  proxies.push(proxy);
  const url = new URL(await proxy.listen());
  return { proxy, port: Number(url.port) };
}

/** `CONNECT authority` through the proxy: the proxy's status line, and the socket (the tunnel when it said 200). */
function connectThrough(proxyPort: number, authority: string): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: proxyPort }, () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head.toString("latin1"))?.[1]), socket });
    };
    socket.on("data", onData);
    socket.once("error", reject);
  });
}

/** One plain HTTP/1.1 exchange on a stream (a tunnel, or a TLS socket in one); the whole answer as text. */
function exchange(stream: net.Socket | tls.TLSSocket, host: string, path = "/"): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    stream.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
    stream.once("end", () => resolve(answer));
    stream.once("close", () => resolve(answer));
    stream.once("error", reject);
    stream.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

/** An absolute-form request through the proxy (how a browser asks a proxy for an http:// URL). */
function requestThrough(proxyPort: number, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: proxyPort }, () => {
      void exchange(socket, new URL(url).host, url).then(resolve, reject);
    });
    socket.once("error", reject);
  });
}

describe("the browser's proxy: HTTPS through CONNECT", () => {
  it("tunnels TLS end to end to a 127.0.0.x site with a self-signed certificate: a client that trusts it reads the page, one that does not is refused by TLS itself", async () => {
    const dir = tempDir();
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=secure-shop.de", "-addext", "subjectAltName=DNS:secure-shop.de", "-days", "1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    const cert = readFileSync(join(dir, "cert.pem"), "utf8");
    let tlsConnections = 0;
    const site = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>Kontakt: info@secure-shop.de</p>"));
    site.on("secureConnection", () => tlsConnections++);
    closeAfterEach(site as unknown as Server);
    const sitePort = await listen(site, "127.0.0.4");
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      callback(null, [{ address: "127.0.0.4", family: 4 }]);
    };
    const { port } = await startProxy("127.0.0.4/32", lookup);

    // Trusted as the product's fetcher trusts a fixture's certificate (its `ca` option): the page arrives.
    const trusted = await connectThrough(port, `secure-shop.de:${sitePort}`);
    expect(trusted.status).toBe(200);
    const secure = tls.connect({ socket: trusted.socket, servername: "secure-shop.de", ca: [cert] });
    await new Promise<void>((resolve, reject) => secure.once("secureConnect", resolve).once("error", reject));
    expect(secure.authorized).toBe(true);
    expect(await exchange(secure, "secure-shop.de")).toContain("info@secure-shop.de");
    // The proxy only splices bytes: TLS is between the client and the site, so an untrusted certificate fails the client.
    const untrusted = await connectThrough(port, `secure-shop.de:${sitePort}`);
    const refused = await new Promise<Error>((resolve) => tls.connect({ socket: untrusted.socket, servername: "secure-shop.de" }).once("error", resolve));
    expect(refused.message).toMatch(/self[- ]signed/i);
    expect(tlsConnections).toBe(1);
    expect(asked).toEqual(["secure-shop.de", "secure-shop.de"]);
  });
});

describe("the browser's proxy: DNS rebinding", () => {
  /** The site on 127.0.0.2 (allowed) and a forbidden listener on 127.0.0.3 on the same port: only the answer decides where a connection goes. */
  async function rebindingPair() {
    let siteConnections = 0;
    const site = createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(req.url === "/robots.txt" ? "" : "<p>the allowed site</p>"));
    site.on("connection", () => siteConnections++);
    closeAfterEach(site);
    const port = await listen(site, "127.0.0.2");
    const forbidden = await forbiddenListener(port);
    return { port, forbidden, siteConnections: () => siteConnections };
  }

  /** A resolver that answers 127.0.0.2 the first time it is asked and 127.0.0.3 every time after. */
  function rebindingResolver() {
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      callback(null, [{ address: asked.length === 1 ? "127.0.0.2" : "127.0.0.3", family: 4 }]);
    };
    return { lookup, asked };
  }

  it("CONNECT: the name is resolved once and the tunnel goes to that pinned address; the next CONNECT, answered with the forbidden address, is refused; the forbidden listener counts 0 connections", async () => {
    const { port: sitePort, forbidden, siteConnections } = await rebindingPair();
    const resolver = rebindingResolver();
    const { proxy, port } = await startProxy("127.0.0.2/32", resolver.lookup);

    const first = await connectThrough(port, `rebind-shop.de:${sitePort}`);
    expect(first.status).toBe(200);
    expect(await exchange(first.socket, `rebind-shop.de:${sitePort}`)).toContain("the allowed site");
    expect(resolver.asked).toEqual(["rebind-shop.de"]);

    const second = await connectThrough(port, `rebind-shop.de:${sitePort}`);
    expect(second.status).toBe(403);
    second.socket.destroy();
    expect(resolver.asked).toEqual(["rebind-shop.de", "rebind-shop.de"]);
    expect(proxy.refused).toBe(1);
    expect(siteConnections()).toBe(1);
    expect(forbidden.connections).toBe(0);
  });

  it("plain HTTP: the request goes to the pinned address, not to a second answer for the name (robots.txt off: its own fetch would resolve again)", async () => {
    const { port: sitePort, forbidden, siteConnections } = await rebindingPair();
    const resolver = rebindingResolver();
    const { proxy, port } = await startProxy("127.0.0.2/32", resolver.lookup, { robots: false });

    expect(await requestThrough(port, `http://rebind-shop.de:${sitePort}/`)).toContain("the allowed site");
    expect(await requestThrough(port, `http://rebind-shop.de:${sitePort}/again`)).toMatch(/^HTTP\/1\.1 403/);
    expect(resolver.asked).toEqual(["rebind-shop.de", "rebind-shop.de"]);
    expect(proxy.refused).toBe(1);
    expect(siteConnections()).toBe(1);
    expect(forbidden.connections).toBe(0);
  });

  it("one answer listing the allowed address first and the forbidden one second refuses the name outright, over CONNECT and plain HTTP", async () => {
    const { port: sitePort, forbidden, siteConnections } = await rebindingPair();
    const lookup: LookupFunction = (_hostname, _options, callback) =>
      callback(null, [
        { address: "127.0.0.2", family: 4 },
        { address: "127.0.0.3", family: 4 },
      ]);
    const { proxy, port } = await startProxy("127.0.0.2/32", lookup);
    const tunnel = await connectThrough(port, `mixed-shop.de:${sitePort}`);
    expect(tunnel.status).toBe(403);
    tunnel.socket.destroy();
    expect(await requestThrough(port, `http://mixed-shop.de:${sitePort}/`)).toMatch(/^HTTP\/1\.1 403/);
    expect(proxy.refused).toBe(2);
    expect(siteConnections()).toBe(0);
    expect(forbidden.connections).toBe(0);
  });
});

describe("the browser's proxy: the browser's own service calls", () => {
  it("refuses Chromium's update, account and Safe Browsing hosts over CONNECT and plain HTTP without resolving them, and still carries a page's own host", async () => {
    const site = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>the page</p>"));
    closeAfterEach(site);
    const sitePort = await listen(site, "127.0.0.2");
    const asked: string[] = [];
    // Every name resolves to the allowed site: only the host rule can refuse (and nothing leaves 127.0.0.0/8).
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      callback(null, [{ address: "127.0.0.2", family: 4 }]);
    };
    const { proxy, port } = await startProxy("127.0.0.2/32", lookup, { robots: false });
    for (const host of ["update.googleapis.com", "CLIENTS2.google.com", "accounts.google.com."]) {
      const tunnel = await connectThrough(port, `${host}:${sitePort}`);
      expect(tunnel.status, host).toBe(403);
      tunnel.socket.destroy();
    }
    expect(await requestThrough(port, `http://safebrowsing.googleapis.com:${sitePort}/v4/threatListUpdates:fetch`)).toMatch(/^HTTP\/1\.1 403/);
    expect(asked).toEqual([]);
    expect(proxy.refused).toBe(4);
    expect(await requestThrough(port, `http://fonts.googleapis.com:${sitePort}/css`)).toContain("the page");
    expect(asked).toEqual(["fonts.googleapis.com"]);
  });
});
