import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { AddressPolicy } from "../../../src/providers/web/address-policy.js";
import { FetchError, SafeWebFetcher } from "../../../src/providers/web/safe-fetcher.js";
import { fixtureLookup, startFixtureSites } from "../../helpers/fixture-sites.js";

const UA = "outreach-test/1.0 (+https://example.invalid)";

function fetcher(options: Partial<ConstructorParameters<typeof SafeWebFetcher>[0]> = {}) {
  return new SafeWebFetcher({ policy: new AddressPolicy(["127.0.0.1/32"]), userAgent: UA, lookup: fixtureLookup, ...options });
}

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe("SafeWebFetcher: the SSRF guard", () => {
  it("sends zero requests to a loopback site when the allow-list is off (IP literals in every form, and names resolving to loopback)", async () => {
    const sites = await startFixtureSites({ "127.0.0.1": { "/": "<p>hi</p>" }, "shop.de": { "/": "<p>hi</p>" } });
    const guarded = new SafeWebFetcher({ policy: new AddressPolicy(), userAgent: UA, lookup: fixtureLookup });
    for (const url of [
      sites.url("127.0.0.1"),
      `http://2130706433:${sites.port}/`,
      `http://0x7f.1:${sites.port}/`,
      `http://[::ffff:127.0.0.1]:${sites.port}/`,
      sites.url("shop.de"),
      "http://127.0.0.1/",
      "http://shop.de/",
    ]) {
      const err = await failure(guarded.fetchPage(url));
      expect(err.reason).toBe("blocked");
    }
    expect(sites.hits()).toBe(0);
  });

  it("refuses non-http schemes, userinfo and non-standard ports without an allow-list", async () => {
    const guarded = new SafeWebFetcher({ policy: new AddressPolicy(), userAgent: UA, lookup: fixtureLookup });
    expect((await failure(guarded.fetchPage("file:///etc/passwd"))).reason).toBe("bad_url");
    expect((await failure(guarded.fetchPage("ftp://shop.de/"))).reason).toBe("bad_url");
    expect((await failure(guarded.fetchPage("http://user:pw@shop.de/"))).reason).toBe("bad_url");
    expect((await failure(guarded.fetchPage("http://shop.de:8080/"))).reason).toBe("blocked");
    expect((await failure(guarded.fetchPage("not a url"))).reason).toBe("bad_url");
  });

  it("re-checks every redirect: a public page redirecting to a forbidden address is refused", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } } } });
    const err = await failure(fetcher().fetchPage(sites.url("shop.de")));
    expect(err.reason).toBe("blocked");
    expect(sites.hits("shop.de")).toBe(2); // robots.txt and the page; nothing towards the metadata address
  });

  it("destroys a socket whose connected address is refused even when the lookup passed (layer 3, e.g. DNS rebinding)", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": "<p>x</p>" } });
    const seen: string[] = [];
    // A policy that says yes to the lookup guard and no once connected: the disagreement
    // a rebinding attack creates between check and use.
    const flipping = {
      hasAllowList: true,
      isAllowListed: (address: string) => (seen.push(address), seen.length === 1),
      isAllowed: () => false,
    } as unknown as AddressPolicy;
    const err = await failure(new SafeWebFetcher({ policy: flipping, userAgent: UA, lookup: fixtureLookup, robots: false }).fetchPage(sites.url("shop.de")));
    expect(err.reason).toBe("blocked");
    expect(err.message).toContain("connected to an address that is not public");
    expect(seen).toEqual(["127.0.0.1", "127.0.0.1"]);
    expect(sites.hits()).toBe(0);
  });

  it("sends the configured User-Agent", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": "<p>x</p>" } });
    await fetcher().fetchPage(sites.url("shop.de"));
    expect(sites.requests.map((r) => r.userAgent)).toEqual([UA, UA]);
  });
});

describe("SafeWebFetcher: redirects", () => {
  function chain(hops: number) {
    const pages: Record<string, { status: number; headers: Record<string, string> } | string> = {};
    for (let i = 0; i < hops; i++) pages[`/r${i}`] = { status: 301, headers: { location: `/r${i + 1}` } };
    pages[`/r${hops}`] = "<title>end</title><p>arrived</p>";
    return pages;
  }

  it("follows a chain of 5 redirects", async () => {
    const sites = await startFixtureSites({ "shop.de": chain(5) });
    const page = await fetcher().fetchPage(sites.url("shop.de", "/r0"));
    expect(page.url).toBe(sites.url("shop.de", "/r5"));
    expect(page.text).toContain("arrived");
  });

  it("refuses a 6th redirect", async () => {
    const sites = await startFixtureSites({ "shop.de": chain(6) });
    expect((await failure(fetcher().fetchPage(sites.url("shop.de", "/r0")))).reason).toBe("too_many_redirects");
    expect(sites.requests.some((r) => r.path === "/r6")).toBe(false);
  });

  it("detects a redirect loop", async () => {
    const sites = await startFixtureSites({
      "shop.de": { "/a": { status: 302, headers: { location: "/b" } }, "/b": { status: 302, headers: { location: "/a" } } },
    });
    expect((await failure(fetcher().fetchPage(sites.url("shop.de", "/a")))).reason).toBe("redirect_loop");
  });
});

describe("SafeWebFetcher: bodies", () => {
  it("stops decompressing a gzip bomb at the decoded-size cap", async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, "a"));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const sites = await startFixtureSites({ "shop.de": { "/": { headers: { "content-encoding": "gzip" }, body: bomb } } });
    const page = await fetcher({ maxBodyBytes: 1024 * 1024 }).fetchPage(sites.url("shop.de"));
    expect(page.truncated).toBe(true);
    expect(page.text.length).toBe(1024 * 1024);
  });

  it("decodes gzip, deflate and brotli bodies", async () => {
    const zlib = await import("node:zlib");
    const html = "<p>Grüße aus München</p>";
    const sites = await startFixtureSites({
      "shop.de": {
        "/gz": { headers: { "content-encoding": "gzip" }, body: zlib.gzipSync(html) },
        "/df": { headers: { "content-encoding": "deflate" }, body: zlib.deflateSync(html) },
        "/br": { headers: { "content-encoding": "br" }, body: zlib.brotliCompressSync(html) },
      },
    });
    for (const path of ["/gz", "/df", "/br"]) expect((await fetcher().fetchPage(sites.url("shop.de", path))).text).toBe(html);
  });

  it("refuses an oversize Content-Length before reading the body", async () => {
    const sites = await startFixtureSites({
      "shop.de": { "/": (_req, res) => res.writeHead(200, { "content-type": "text/html", "content-length": String(50 * 1024 * 1024) }).write("<p>") },
    });
    expect((await failure(fetcher().fetchPage(sites.url("shop.de")))).reason).toBe("too_large");
  });

  it("skips bodies that are not HTML or plain text", async () => {
    const sites = await startFixtureSites({
      "shop.de": { "/menu.pdf": { headers: { "content-type": "application/pdf" }, body: "%PDF-1.7 info@shop.de" }, "/x.txt": { headers: { "content-type": "text/plain" }, body: "ok" } },
    });
    expect((await failure(fetcher().fetchPage(sites.url("shop.de", "/menu.pdf")))).reason).toBe("not_text");
    expect((await fetcher().fetchPage(sites.url("shop.de", "/x.txt"))).text).toBe("ok");
  });

  it("decodes Latin-1 from the header and from <meta charset>, and UTF-8 by default", async () => {
    const latin1 = Buffer.from("<p>Bäckerei Müller – Straße</p>", "latin1");
    const sites = await startFixtureSites({
      "shop.de": {
        "/header": { headers: { "content-type": "text/html; charset=ISO-8859-1" }, body: latin1 },
        "/meta": { headers: { "content-type": "text/html" }, body: Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'), latin1]) },
        "/utf8": { headers: { "content-type": "text/html" }, body: Buffer.from("<p>Bäckerei</p>", "utf8") },
      },
    });
    expect((await fetcher().fetchPage(sites.url("shop.de", "/header"))).text).toContain("Bäckerei Müller");
    expect((await fetcher().fetchPage(sites.url("shop.de", "/meta"))).text).toContain("Straße");
    expect((await fetcher().fetchPage(sites.url("shop.de", "/utf8"))).text).toContain("Bäckerei");
  });

  it("times out a body that stalls after the headers", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).write("<p>start") } });
    const err = await failure(fetcher({ bodyTimeoutMs: 200, robots: false }).fetchPage(sites.url("shop.de")));
    expect(err.reason).toBe("timeout");
  });

  it("times out a page whose headers never come", async () => {
    const sites = await startFixtureSites({ "shop.de": { "/": () => undefined } });
    const err = await failure(fetcher({ headersTimeoutMs: 200 }).fetchPage(sites.url("shop.de")));
    expect(err.reason).toBe("timeout");
  });
});

describe("SafeWebFetcher: robots.txt", () => {
  it("obeys a disallow for its product token and allows the rest", async () => {
    const sites = await startFixtureSites({
      "shop.de": {
        "/robots.txt": { headers: { "content-type": "text/plain" }, body: "User-agent: *\nDisallow: /\n\nUser-agent: outreach-test\nDisallow: /private\nAllow: /private/contact$\n" },
        "/private/x": "<p>secret</p>",
        "/private/contact": "<p>contact</p>",
        "/": "<p>home</p>",
      },
    });
    const f = fetcher();
    expect((await failure(f.fetchPage(sites.url("shop.de", "/private/x")))).reason).toBe("robots");
    expect((await f.fetchPage(sites.url("shop.de", "/private/contact"))).text).toContain("contact");
    expect((await f.fetchPage(sites.url("shop.de", "/"))).text).toContain("home");
    expect(sites.requests.filter((r) => r.path === "/robots.txt")).toHaveLength(1); // cached
    expect(sites.requests.some((r) => r.path === "/private/x")).toBe(false);
  });

  it("disallows everything when robots.txt answers 5xx, allows everything on 4xx", async () => {
    const sites = await startFixtureSites({
      "down.de": { "/robots.txt": { status: 503 }, "/": "<p>x</p>" },
      "open.de": { "/robots.txt": { status: 404 }, "/": "<p>x</p>" },
    });
    expect((await failure(fetcher().fetchPage(sites.url("down.de")))).reason).toBe("robots");
    expect(sites.requests.filter((r) => r.host === "down.de" && r.path === "/")).toHaveLength(0);
    expect((await fetcher().fetchPage(sites.url("open.de"))).text).toContain("x");
  });
});

describe("SafeWebFetcher: connection limits", () => {
  it("keeps at most 2 connections open to one host", async () => {
    let open = 0;
    let peak = 0;
    const slow = (_req: unknown, res: import("node:http").ServerResponse) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { "content-type": "text/html" }).end("<p>x</p>");
      }, 60);
    };
    const pages: Record<string, typeof slow> = {};
    for (let i = 0; i < 6; i++) pages[`/p${i}`] = slow;
    const sites = await startFixtureSites({ "shop.de": pages });
    const f = fetcher({ robots: false });
    await Promise.all(Object.keys(pages).map((p) => f.fetchPage(sites.url("shop.de", p))));
    expect(peak).toBe(2);
  });
});

describe("SafeWebFetcher: HTTPS", () => {
  it("fetches over TLS on the checked socket, verifying the certificate for the host name", async () => {
    const { execFileSync } = await import("node:child_process");
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tempDir } = await import("../../helpers/data-dir.js");
    const https = await import("node:https");
    const dir = tempDir();
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=shop.de", "-addext", "subjectAltName=DNS:shop.de", "-days", "1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    const cert = readFileSync(join(dir, "cert.pem"), "utf8");
    const requests: string[] = [];
    const server = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      requests.push(`${req.headers.host} ${req.url}`);
      res.writeHead(200, { "content-type": "text/html" }).end("<p>secure</p>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as import("node:net").AddressInfo).port;
    try {
      const page = await fetcher({ ca: [cert], robots: false }).fetchPage(`https://shop.de:${port}/`);
      expect(page.text).toBe("<p>secure</p>");
      const wrongName = await failure(fetcher({ ca: [cert], robots: false }).fetchPage(`https://other.de:${port}/`));
      expect(wrongName.reason).toBe("tls");
      expect(requests).toEqual([`shop.de:${port} /`]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
