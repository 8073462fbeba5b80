import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Lead } from "../../src/core/schemas/lead.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { tempDir } from "../helpers/data-dir.js";
import { startDnsServer } from "../helpers/dns-server.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";

function instance(config: Record<string, unknown> = {}) {
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 5000, ...config } });
  t.services.enrichment.useResolver(fixtureLookup);
  return t;
}

const never = new AbortController().signal;

/** A site that answers every request (robots.txt included) after `delay.ms`, which the test may change. */
function delayed(delay: { ms: number }, body: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const timer = setTimeout(() => {
      if (!res.destroyed) res.writeHead(200, { "content-type": "text/html" }).end(body);
    }, delay.ms);
    req.on("close", () => clearTimeout(timer));
  };
}

describe("enrichment retry re-crawls", () => {
  it("a site that timed out during the search (answering only after 12 s) is fetched again by the retry and found", async () => {
    const delay = { ms: 12_000 };
    const sites = await startFixtureSites({
      "late-garage.de": { "/robots.txt": delayed(delay, "User-agent: *\nAllow: /"), "/": delayed(delay, '<a href="mailto:werkstatt@late-garage.de">Mail</a>') },
    });
    const t = instance({ enrichBudgetMs: 1000 });
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("late-garage.de"))], { signal: never });
    expect(run.leads[0]).toMatchObject({ email: null, enrichmentPending: true });
    const before = sites.hits("late-garage.de");
    delay.ms = 0;
    const retried = await t.services.enrichment.retry(t.teamId, run.retryToken!);
    expect(retried[0]).toMatchObject({ email: "werkstatt@late-garage.de", enrichmentPending: false });
    expect(retried[0]!.enrichmentError).toBeUndefined();
    expect(sites.hits("late-garage.de")).toBeGreaterThan(before);
  });

  it("a site slower than its own budget stays pending in the search (not a failure) and the retry's longer budget reads it", async () => {
    const delay = { ms: 12_000 };
    const sites = await startFixtureSites({ "late-shop.de": { "/": delayed(delay, "<p>laden@late-shop.de</p>") } });
    const t = instance({ enrichSiteBudgetMs: 500, enrichBudgetMs: 3000 });
    const leads = [placeLead("1", sites.url("late-shop.de"))];
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(run.leads[0]).toMatchObject({ email: null, enrichmentPending: true });
    expect(run.leads[0]!.enrichmentError).toBeUndefined();
    expect(run.retryToken).not.toBeNull();
    // Slowness is not cached as a failure: the next search tries again (and is pending again).
    const again = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(again.leads[0]).toMatchObject({ enrichmentPending: true });
    delay.ms = 0;
    const retried = await t.services.enrichment.retry(t.teamId, run.retryToken!);
    expect(retried[0]).toMatchObject({ email: "laden@late-shop.de", enrichmentPending: false });
  });

  it("a site still too slow for the retry's own budget comes back from the retry as a timeout, not pending", async () => {
    const sites = await startFixtureSites({ "never-shop.de": { "/": delayed({ ms: 60_000 }, "<p>x@never-shop.de</p>") } });
    const t = instance({ enrichSiteBudgetMs: 300, enrichBudgetMs: 3000, enrichRetryBudgetMs: 800 });
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("never-shop.de"))], { signal: never });
    expect(run.leads[0]!.enrichmentPending).toBe(true);
    const retried = await t.services.enrichment.retry(t.teamId, run.retryToken!);
    expect(retried[0]).toMatchObject({ email: null, enrichmentPending: false, enrichmentError: { code: "timeout" } });
  });
});

describe("enrichmentError says why a site failed", () => {
  it("robots.txt, HTTP status, refused addresses and unreadable hosts each have their code, and the cache repeats them", async () => {
    const sites = await startFixtureSites({
      "private.de": { "/robots.txt": "User-agent: *\nDisallow: /", "/": "<p>x@private.de</p>" },
      "down.de": { "/": { status: 503, body: "maintenance" } },
    });
    const t = instance();
    const leads = [placeLead("1", sites.url("private.de")), placeLead("2", sites.url("down.de")), placeLead("3", `http://10.1.2.3/`)];
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(run.leads.map((l) => l.enrichmentError?.code)).toEqual(["robots", "http_status", "blocked"]);
    expect(run.leads[1]!.enrichmentError).toMatchObject({ status: 503 });
    expect(run.leads[1]!.enrichmentError!.message).toContain("503");
    for (const lead of run.leads) expect(() => Lead.parse(lead)).not.toThrow();
    const hits = sites.hits();
    const again = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(sites.hits()).toBe(hits);
    expect(again.leads.map((l) => l.enrichmentError?.code)).toEqual(["robots", "http_status", "blocked"]);
  });

  it("a certificate the fetcher cannot verify is a TLS failure", async () => {
    const dir = tempDir();
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=tls-shop.de", "-days", "1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => res.end("<p>info@tls-shop.de</p>"));
    closeAfterEach(server as never);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const t = instance();
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", `https://tls-shop.de:${(server.address() as AddressInfo).port}/`)], { signal: never });
    expect(run.leads[0]!.enrichmentError).toMatchObject({ code: "tls" });
    expect(run.leads[0]!.email).toBeNull();
  });

  it("refresh crawls again instead of answering from the cache", async () => {
    const pages: Record<string, string> = { "/": "<p>alt@fresh-shop.de</p>" };
    const sites = await startFixtureSites({ "fresh-shop.de": { "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(pages["/"]) } });
    const t = instance();
    const leads = [placeLead("1", sites.url("fresh-shop.de"))];
    expect((await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never })).leads[0]!.email).toBe("alt@fresh-shop.de");
    pages["/"] = "<p>neu@fresh-shop.de</p>";
    expect((await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never })).leads[0]!.email).toBe("alt@fresh-shop.de");
    expect((await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never, refresh: true })).leads[0]!.email).toBe("neu@fresh-shop.de");
    // The refreshed facts replace the cached ones.
    expect((await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never })).leads[0]!.email).toBe("neu@fresh-shop.de");
  });
});

describe("found emails are checked in DNS (RFC 5321 §5.1)", () => {
  const zone = {
    mx: { "t-online.de": [{ exchange: "mx00.t-online.de", priority: 10 }], "nomail-shop.de": [{ exchange: ".", priority: 0 }] },
    a: { "implicit-shop.de": ["192.0.2.10"] },
    txt: { "bare-shop.de": ["v=spf1 -all"] },
  };

  it("drops addresses whose domain does not exist, has a null MX or no MX/A/AAAA, falls back to the next, and keeps implicit MX", async () => {
    const dns = await startDnsServer(zone);
    const sites = await startFixtureSites({
      "gone-bakery.de": { "/": '<p><a href="mailto:info@gone-bakery.de">info@gone-bakery.de</a> · Inhaber privat: baecker@t-online.de</p>' },
      "nomail-shop.de": { "/": "<p>info@nomail-shop.de</p>" },
      "bare-shop.de": { "/": "<p>info@bare-shop.de</p>" },
      "implicit-shop.de": { "/": "<p>info@implicit-shop.de</p>" },
    });
    const t = instance({ emailDnsCheck: true, dnsServers: [dns.address], dnsTimeoutMs: 500, dnsTries: 1 });
    const leads = ["gone-bakery.de", "nomail-shop.de", "bare-shop.de", "implicit-shop.de"].map((host, i) => placeLead(String(i), sites.url(host)));
    const run = await t.services.enrichment.enrichForSearch(t.teamId, leads, { signal: never });
    expect(run.leads.map((l) => l.email)).toEqual(["baecker@t-online.de", null, null, "info@implicit-shop.de"]);
    expect(run.leads.map((l) => l.enrichmentError?.code)).toEqual([undefined, "undeliverable", "undeliverable", undefined]);
    expect(run.leads[1]!.enrichmentError!.message).toContain("null MX");
    expect(run.leads[2]!.enrichmentError!.message).toContain("no MX, A or AAAA");
    expect(t.services.enrichment.emailsDropped).toBe(3);
    // One lookup per domain: a second site with the same mail domain asks nothing again.
    const asked = dns.queries.length;
    const more = await startFixtureSites({ "other-bakery.de": { "/": "<p>Inhaber: baecker@t-online.de</p>" } });
    await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("9", more.url("other-bakery.de"))], { signal: never });
    expect(dns.queries.length).toBe(asked);
  });

  it("keeps the address when DNS fails or no resolver answers", async () => {
    const dns = await startDnsServer(zone, "servfail");
    const sites = await startFixtureSites({ "gone-bakery.de": { "/": "<p>info@gone-bakery.de</p>" } });
    const t = instance({ emailDnsCheck: true, dnsServers: [dns.address], dnsTimeoutMs: 300, dnsTries: 1 });
    const run = await t.services.enrichment.enrichForSearch(t.teamId, [placeLead("1", sites.url("gone-bakery.de"))], { signal: never });
    expect(run.leads[0]!.email).toBe("info@gone-bakery.de");
    dns.mode = "silent";
    const silent = instance({ emailDnsCheck: true, dnsServers: [dns.address], dnsTimeoutMs: 300, dnsTries: 1 });
    const again = await silent.services.enrichment.enrichForSearch(silent.teamId, [placeLead("1", sites.url("gone-bakery.de"))], { signal: never });
    expect(again.leads[0]!.email).toBe("info@gone-bakery.de");
    expect(silent.services.enrichment.emailsDropped).toBe(0);
  });
});
