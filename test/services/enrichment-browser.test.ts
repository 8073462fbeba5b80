import { execFileSync } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Lead } from "../../src/core/schemas/lead.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";
import { startTestServer } from "../helpers/server.js";

/** Debian's Chromium (.ci/run installs it): the real browser, never a stand-in. */
const CHROMIUM = execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"]).toString().trim();
const never = new AbortController().signal;
const instances: Array<ReturnType<typeof createTestInstance>> = [];

afterEach(async () => {
  for (const t of instances.splice(0)) await t.services.enrichment.browser?.close();
});

function instance() {
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 40_000, enrichSiteBudgetMs: 30_000, browser: CHROMIUM, browserPages: 2 } });
  t.services.enrichment.useResolver(fixtureLookup);
  instances.push(t);
  return t;
}

/** A listener on another loopback address, not in the allow list, that counts every connection made to it. */
async function forbiddenListener() {
  const counter = { connections: 0, port: 0 };
  const server = createServer((_req, res) => res.end("reached"));
  server.on("connection", () => counter.connections++);
  server.on("upgrade", (_req, socket) => socket.destroy());
  closeAfterEach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  counter.port = (server.address() as AddressInfo).port;
  return counter;
}

const page = (body: string) => `<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`;

describe("script-built pages in a real browser (OUTREACH_BROWSER)", () => {
  it("finds addresses written by document.write, assembled from data attributes, and behind a cookie-and-reload challenge; sources say rendered", async () => {
    const challenge = (req: IncomingMessage, res: ServerResponse) => {
      const passed = /(?:^|;\s*)challenge=passed/.test(String(req.headers.cookie ?? ""));
      res.writeHead(200, { "content-type": "text/html" });
      res.end(passed ? page("<h1>Bäckerei</h1><p>Bestellungen: office@challenge-shop.de</p>") : page('<script>document.cookie = "challenge=passed; path=/"; location.reload();</script>'));
    };
    const sites = await startFixtureSites({
      "write-shop.de": { "/": page("<div id=\"app\"></div><script>var u = 'info', d = 'write-shop.de'; document.write('<a href=\"mailto:' + u + '@' + d + '\">' + u + '@' + d + '</a>');</script>") },
      "data-shop.de": { "/": page('<p>Schreiben Sie uns: <span class="em" data-user="kontakt" data-domain="data-shop.de"></span></p><script>for (const s of document.querySelectorAll(".em")) s.textContent = s.dataset.user + "@" + s.dataset.domain;</script>') },
      "challenge-shop.de": { "/": challenge },
      "plain-shop.de": { "/": page("<p>Wir sind ein Laden ohne Adresse auf der Seite, seit vielen Jahren in der Stadt, mit einem langen Text über uns, der keine Skripte braucht und den jeder lesen kann, auch ohne Browser. Öffnungszeiten Montag bis Freitag.</p>".repeat(2)) },
    });
    const t = instance();
    const hosts = ["write-shop.de", "data-shop.de", "challenge-shop.de", "plain-shop.de"];
    const run = await t.services.enrichment.enrichForSearch(t.teamId, hosts.map((h, i) => placeLead(String(i), sites.url(h))), { signal: never });
    expect(run.leads.map((l) => l.email)).toEqual(["info@write-shop.de", "kontakt@data-shop.de", "office@challenge-shop.de", null]);
    for (const lead of run.leads.slice(0, 3)) {
      expect(() => Lead.parse(lead)).not.toThrow();
      expect(lead.businessSources?.[0]).toMatchObject({ rendered: true });
    }
    // A page that does not look script-built is never opened in the browser.
    expect(sites.requests.filter((r) => r.host === "plain-shop.de" && r.path === "/")).toHaveLength(1);
  }, 90_000);

  it("no request of a rendered page escapes: fetch, image, iframe and WebSocket to a non-allow-listed loopback address and to a robots-disallowed path cause zero connections there", async () => {
    const forbidden = await forbiddenListener();
    const target = `127.0.0.2:${forbidden.port}`;
    const script = `
      const tries = [];
      tries.push(fetch("http://${target}/fetch").catch(() => {}));
      new Image().src = "http://${target}/image";
      const frame = document.createElement("iframe"); frame.src = "http://${target}/frame"; document.body.appendChild(frame);
      try { new WebSocket("ws://${target}/socket"); } catch {}
      tries.push(fetch("/private/fetch").catch(() => {}));
      new Image().src = "/private/image";
      try { new WebSocket("ws://" + location.host + "/private/socket"); } catch {}
      window.open("http://${target}/popup");
      alert("hello"); confirm("sure?");
      Promise.all(tries).then(() => fetch("/done"));
      document.write('<p>' + ['hallo', 'guarded-shop.de'].join('@') + '</p>');`;
    const sites = await startFixtureSites({
      "guarded-shop.de": { "/robots.txt": "User-agent: *\nDisallow: /private/", "/": page(`<div id="root"></div><script>${script}</script>`), "/done": "ok" },
    });
    const t = instance();
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("guarded-shop.de"))], { signal: never });
    expect(run.leads[0]!.email).toBe("hallo@guarded-shop.de");
    expect(run.leads[0]!.businessSources?.[0]).toMatchObject({ rendered: true });
    // The scripts ran past every attempt (the page reported back), and the proxy refused the forbidden address.
    expect(sites.requests.some((r) => r.path === "/done")).toBe(true);
    expect(t.services.enrichment.browser!.refused).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(forbidden.connections).toBe(0);
    expect(sites.requests.filter((r) => r.path.startsWith("/private/"))).toEqual([]);
  }, 90_000);

  it("kill -9 of the browser mid-crawl fails that site only; the next site gets a fresh browser and /healthz answers throughout", async () => {
    let onScript!: () => void;
    const scriptRequested = new Promise<void>((resolve) => (onScript = resolve));
    const sites = await startFixtureSites({
      "killed-shop.de": {
        "/": page('<div id="app"></div><script src="/app.js"></script>'),
        "/app.js": (_req: IncomingMessage, res: ServerResponse) => {
          onScript();
          setTimeout(() => res.destroyed || res.writeHead(200, { "content-type": "text/javascript" }).end("document.body.append('x@killed-shop.de')"), 20_000).unref();
        },
      },
      "next-shop.de": { "/": page("<div id=\"app\"></div><script>document.write(['neu', 'next-shop.de'].join('@'))</script>") },
    });
    const t = instance();
    const server = await startTestServer(t.services);
    const polls: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const response = await fetch(`${server.url}/healthz`);
        polls.push(response.status);
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const killed = t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("killed-shop.de"))], { signal: never });
    await scriptRequested;
    const pid = await t.services.enrichment.browser!.pid();
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, "SIGKILL");
    const first = await killed;
    expect(first.leads[0]).toMatchObject({ email: null, enrichmentError: { code: "unreadable" } });
    const next = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("2", sites.url("next-shop.de"))], { signal: never });
    // The crash is not remembered as the site's failure: the next search tries the site again.
    const before = sites.hits("killed-shop.de");
    const again = t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("killed-shop.de"))], { signal: AbortSignal.timeout(3000) });
    await again;
    expect(sites.hits("killed-shop.de")).toBeGreaterThan(before);
    polling = false;
    await poller;
    expect(next.leads[0]!.email).toBe("neu@next-shop.de");
    expect(t.services.enrichment.browser!.launches).toBe(2);
    expect(polls.length).toBeGreaterThan(3);
    expect(polls.every((status) => status === 200)).toBe(true);
  }, 90_000);

  it("an endless script loop is killed at the site's budget; file:// navigation, a 1 GB download, popup storms and dialogs cost nothing", async () => {
    let bigBytes = 0;
    const sites = await startFixtureSites({
      "loop-shop.de": { "/": page('<div id="app"></div><script>while (true) {}</script>') },
      "passwd-shop.de": { "/": page('<div id="app"></div><script>location.href = "file:///etc/passwd";</script>') },
      "download-shop.de": {
        "/": page(`<div id="app"></div><a id="d" href="/big.bin" download>get</a><script>
          document.getElementById("d").click();
          for (let i = 0; i < 50; i++) window.open("/popup" + i);
          alert("a"); confirm("b"); prompt("c"); print();
          document.write(["dl", "download-shop.de"].join("@"));</script>`),
        "/big.bin": (_req: IncomingMessage, res: ServerResponse) => {
          res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(1024 ** 3) });
          const block = Buffer.alloc(64 * 1024);
          const more = () => {
            while (!res.destroyed && bigBytes < 1024 ** 3) {
              bigBytes += block.length;
              if (!res.write(block)) return void res.once("drain", more);
            }
          };
          more();
        },
      },
    });
    const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 20_000, enrichSiteBudgetMs: 5000, browser: CHROMIUM, browserPages: 2 } });
    t.services.enrichment.useResolver(fixtureLookup);
    instances.push(t);
    const looped = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("loop-shop.de"))], { signal: never });
    // Slow, not unreadable: pending, as any site past its budget.
    expect(looped.leads[0]).toMatchObject({ email: null, enrichmentPending: true });
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("2", sites.url("passwd-shop.de")), placeLead("3", sites.url("download-shop.de"))], { signal: never });
    expect(run.leads.map((l) => l.email)).toEqual([null, "dl@download-shop.de"]);
    expect(sites.requests.filter((r) => r.path.startsWith("/popup")).length).toBe(0);
    // The download was refused (or cut at the proxy's cap), never read to its end.
    expect(bigBytes).toBeLessThan(64 * 1024 * 1024);
    // The looping page was closed at the budget (Chromium ends its renderer; had it not closed in
    // 2 s the process would have been killed): the same or a fresh browser showed the later sites.
    expect(t.services.enrichment.browser!.launches).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it("a browser above its memory ceiling is replaced once its page is done; the next site gets a fresh one", async () => {
    const sites = await startFixtureSites({
      "first-shop.de": { "/": page("<div id=\"app\"></div><script>document.write(['eins', 'first-shop.de'].join('@'))</script>") },
      "second-shop.de": { "/": page("<div id=\"app\"></div><script>document.write(['zwei', 'second-shop.de'].join('@'))</script>") },
    });
    // A ceiling of 1 MB: every Chromium is above it after its first page.
    const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 40_000, enrichSiteBudgetMs: 30_000, browser: CHROMIUM, browserPages: 2, browserMemoryMb: 1 } });
    t.services.enrichment.useResolver(fixtureLookup);
    instances.push(t);
    const first = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("first-shop.de"))], { signal: never });
    const firstPid = await t.services.enrichment.browser!.pid();
    const second = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("2", sites.url("second-shop.de"))], { signal: never });
    expect([first.leads[0]!.email, second.leads[0]!.email]).toEqual(["eins@first-shop.de", "zwei@second-shop.de"]);
    expect(t.services.enrichment.browser!.launches).toBe(2);
    expect(firstPid).toBeUndefined(); // retired at once: no browser runs between the two sites
  }, 90_000);
});
