import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SendingDomain, SendingDomainList } from "../../src/core/schemas/sending-domain.js";
import type { ServerConfig } from "../../src/services/config.js";
import { generateDkimKey, type DkimKeyGenerator } from "../../src/services/sending/dkim-keys.js";
import { databasePath } from "../../src/services/instance.js";
import { dkimKeyAad } from "../../src/store/sending-domains.js";
import { TeamsRepo } from "../../src/store/teams.js";
import { closedPort, startDnsServer, type TestDnsServer } from "../helpers/dns-server.js";
import { createTestInstance, type TestInstance } from "../helpers/instance.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { correctZone, recordOf, splitTxt } from "../helpers/sending-domains.js";

const BASE = "/api/v1/settings/sending-domains";

interface Setup {
  dns: TestDnsServer;
  instance: TestInstance;
  server: TestServer;
  add(domain?: string, senderEmail?: string, token?: string): Promise<Response>;
  list(token?: string): Promise<SendingDomainList>;
  /** Add a domain and return it as listed. */
  added(domain?: string): Promise<SendingDomain>;
  verify(id: string, token?: string): Promise<Response>;
  get(id: string): Promise<SendingDomain>;
}

async function setup(options: { plan?: string; config?: Partial<ServerConfig>; dnsServers?: string[]; dkimKeys?: DkimKeyGenerator } = {}): Promise<Setup> {
  const dns = await startDnsServer();
  const instance = createTestInstance({
    plan: options.plan,
    dkimKeys: options.dkimKeys,
    config: { dnsServers: options.dnsServers ?? [dns.address], dnsTimeoutMs: 150, dnsTries: 1, domainVerifyIntervalSeconds: 10, ...options.config },
  });
  const server = await startTestServer(instance.services);
  const s: Setup = {
    dns,
    instance,
    server,
    add: (domain = "example.com", senderEmail = `hello@${domain}`, token = instance.token) =>
      server.request(`${BASE}?teamId=${instance.teamId}`, { method: "POST", token, json: { domain, senderEmail, senderName: "Acme Sales" } }),
    list: async (token = instance.token) => {
      const res = await server.request(`${BASE}?teamId=${instance.teamId}`, { token });
      expect(res.status).toBe(200);
      return (await res.json()) as SendingDomainList;
    },
    added: async (domain = "example.com") => {
      const res = await s.add(domain);
      expect(res.status).toBe(200);
      return (await s.list()).domains.find((d) => d.domain === domain)!;
    },
    verify: (id, token = instance.token) => server.request(`${BASE}/${id}/verify`, { method: "POST", token }),
    get: async (id) => (await s.list()).domains.find((d) => d.id === id)!,
  };
  return s;
}

/** Verify and read the domain back; each call moves the clock past the per-domain limit. */
async function verified(s: Setup, id: string): Promise<SendingDomain> {
  const res = await s.verify(id);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ success: true });
  s.instance.clock.advance(10_000);
  return s.get(id);
}

describe("adding and listing sending domains", () => {
  it("adds a domain with a fresh 2048-bit DKIM key and the five records to publish, all pending", async () => {
    // The product's generator (the other tests use fast 1024-bit keys).
    const s = await setup({ dkimKeys: generateDkimKey });
    const res = await s.add("example.com", "hello@example.com");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const list = await s.list();
    expect(list).toMatchObject({ defaultDomainId: null, canManage: true, canUseCustomSender: true });
    expect(list.holdReason).toMatch(/no sending domain is verified/);
    const d = list.domains[0]!;
    expect(d).toMatchObject({
      domain: "example.com",
      senderEmail: "hello@example.com",
      senderName: "Acme Sales",
      status: "pending",
      ownershipVerifiedAt: null,
      dkimVerified: false,
      returnPathVerified: false,
      dmarcStatus: null,
      lastCheckedAt: null,
      lastError: null,
    });
    expect(d.id).toMatch(/^dom_/);
    expect(d.dnsRecords.map((r) => [r.purpose, r.type, r.host, r.required, r.status])).toEqual([
      ["ownership", "TXT", "_outreach.example.com", true, "pending"],
      ["dkim", "TXT", `${recordOf(d, "dkim").name}.example.com`, true, "pending"],
      ["return_path", "CNAME", "bounce.example.com", true, "pending"],
      ["spf", "TXT", "example.com", false, "pending"],
      ["dmarc", "TXT", "_dmarc.example.com", false, "pending"],
    ]);
    expect(recordOf(d, "ownership").value).toBe(`outreach-verification=${d.ownershipToken}`);
    expect(recordOf(d, "return_path").value).toBe("bounces.outreach.localhost");
    expect(recordOf(d, "spf").value).toBe("v=spf1 include:_spf.bounces.outreach.localhost ~all");
    expect(recordOf(d, "dmarc").value).toMatch(/^v=DMARC1; p=none/);
    const dkim = recordOf(d, "dkim");
    expect(dkim.name).toMatch(/^[a-z0-9]+\._domainkey$/);
    const p = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(dkim.value)![1]!;
    const key = createPublicKey({ key: Buffer.from(p, "base64"), format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it("normalises the domain: lower case, IDN to punycode, trailing dot removed, and the sender's domain likewise", async () => {
    const s = await setup();
    expect((await s.add("Bücher.Example.", "Info@XN--Bcher-kva.EXAMPLE")).status).toBe(200);
    const [d] = (await s.list()).domains;
    expect(d!.domain).toBe("xn--bcher-kva.example");
    expect(d!.senderEmail).toBe("Info@xn--bcher-kva.example");
  });

  it("accepts a sender address at a subdomain of the domain", async () => {
    const s = await setup();
    expect((await s.add("example.com", "news@mail.example.com")).status).toBe(200);
  });

  it.each([
    ["192.0.2.10", /invalid body: domain must be a domain name, not an IP address/],
    ["[2001:db8::1]", /invalid body: domain must be a domain name, not an IP address/],
    ["localhost", /invalid body: domain must have at least two labels/],
    ["co.uk", /invalid body: domain is a public suffix/],
    ["github.io", /invalid body: domain is a public suffix/],
    ["https://example.com/", /invalid body: domain must be a bare domain name/],
    ["exa_mple.com", /invalid body: domain is not a valid domain name/],
  ])("refuses the domain %s with a 400 naming the field", async (domain, message) => {
    const s = await setup();
    const res = await s.add(domain, "a@example.com");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(message);
    expect((await s.list()).domains).toEqual([]);
  });

  it("refuses a sender address at another domain, a malformed one and a sender name with a line break", async () => {
    const s = await setup();
    let res = await s.add("example.com", "hello@example.org");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/invalid body: senderEmail must be an address at example\.com or a subdomain of it/);
    res = await s.add("example.com", "hello@notexample.com");
    expect(res.status).toBe(400);
    res = await s.add("example.com", "not-an-email");
    expect((await res.json()).error).toMatch(/invalid body: senderEmail must be a valid email address/);
    res = await s.server.request(`${BASE}?teamId=${s.instance.teamId}`, {
      method: "POST",
      token: s.instance.token,
      json: { domain: "example.com", senderEmail: "a@example.com", senderName: "Acme\r\nBcc: victim@example.net" },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/senderName must not contain line breaks/);
    res = await s.server.request(`${BASE}?teamId=${s.instance.teamId}`, {
      method: "POST",
      token: s.instance.token,
      json: { domain: "example.com", senderEmail: "a@example.com" },
    });
    expect((await res.json()).error).toMatch(/senderName is required/);
    expect((await s.list()).domains).toEqual([]);
  });

  it("answers 409 for the same domain twice in a workspace, however it is spelt", async () => {
    const s = await setup();
    expect((await s.add("example.com")).status).toBe(200);
    const res = await s.add("EXAMPLE.com.", "x@example.com");
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatch(/example\.com is already a sending domain of this workspace/);
    expect((await s.list()).domains).toHaveLength(1);
  });

  it("lets two workspaces each add the same domain, with their own ownership tokens", async () => {
    const s = await setup();
    const other = s.instance.services.identity.bootstrap({ name: "Bob", email: "bob@example.net", team: "Bobco", plan: "self-hosted" });
    await s.added("example.com");
    const res = await s.server.request(`${BASE}?teamId=${other.team.id}`, {
      method: "POST",
      token: other.token,
      json: { domain: "example.com", senderEmail: "b@example.com", senderName: "Bob" },
    });
    expect(res.status).toBe(200);
    const bobs = (await (await s.server.request(`${BASE}?teamId=${other.team.id}`, { token: other.token })).json()) as SendingDomainList;
    expect(bobs.domains).toHaveLength(1);
    expect(bobs.domains[0]!.ownershipToken).not.toBe((await s.list()).domains[0]!.ownershipToken);
  });

  it("needs teamId (400) and it must be the caller's active workspace (403)", async () => {
    const s = await setup();
    let res = await s.server.request(BASE, { token: s.instance.token });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/invalid query: teamId is required/);
    res = await s.server.request(BASE, { method: "POST", token: s.instance.token, json: { domain: "example.com", senderEmail: "a@example.com", senderName: "A" } });
    expect(res.status).toBe(400);
    const other = s.instance.services.identity.bootstrap({ name: "Bob", email: "bob@example.net", team: "Bobco", plan: "self-hosted" });
    res = await s.server.request(`${BASE}?teamId=${other.team.id}`, { token: s.instance.token });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatch(/is not your active workspace/);
    res = await s.server.request(`${BASE}?teamId=${other.team.id}`, {
      method: "POST",
      token: s.instance.token,
      json: { domain: "example.com", senderEmail: "a@example.com", senderName: "A" },
    });
    expect(res.status).toBe(403);
    expect((await s.list()).domains).toEqual([]);
  });
});

describe("roles and plans", () => {
  it("lets a member list (canManage false) but not add, verify or remove: 403 naming the role", async () => {
    const s = await setup();
    const d = await s.added();
    const member = s.instance.addUser({ email: "mia@example.com", role: "member" });
    const res = await s.add("other.com", "a@other.com", member.token);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatch(/only an owner or admin .* add a sending domain \(your role: member\)/);
    const verify = await s.verify(d.id, member.token);
    expect(verify.status).toBe(403);
    expect((await verify.json()).error).toMatch(/owner or admin/);
    const del = await s.server.request(`${BASE}/${d.id}`, { method: "DELETE", token: member.token });
    expect(del.status).toBe(403);
    const list = await s.list(member.token);
    expect(list.canManage).toBe(false);
    expect(list.domains).toHaveLength(1);
    expect(s.dns.queries).toEqual([]);
  });

  it("lets an admin add and remove", async () => {
    const s = await setup();
    const admin = s.instance.addUser({ email: "adam@example.com", role: "admin" });
    expect((await s.add("example.com", "a@example.com", admin.token)).status).toBe(200);
    const [d] = (await s.list(admin.token)).domains;
    expect((await s.server.request(`${BASE}/${d!.id}`, { method: "DELETE", token: admin.token })).status).toBe(200);
  });

  it("refuses adding and verifying on a plan without custom sender, saying it is the plan", async () => {
    const s = await setup();
    const d = await s.added();
    new TeamsRepo(s.instance.services.deps.db).setPlan(s.instance.teamId, "free", null, null);
    const res = await s.add("other.com", "a@other.com");
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatch(/free plan does not include custom sending domains/);
    const verify = await s.verify(d.id);
    expect(verify.status).toBe(403);
    expect((await verify.json()).error).toMatch(/plan/);
    const list = await s.list();
    expect(list).toMatchObject({ canUseCustomSender: false, canManage: true, defaultDomainId: null });
    expect(list.holdReason).toMatch(/free plan/);
    expect(s.dns.queries).toEqual([]);
  });
});

describe("verification against a real DNS server", () => {
  it("verifies a domain whose records are all published (DKIM split over several strings)", async () => {
    // The product's 2048-bit key: its record is longer than one 255-byte string.
    const s = await setup({ dkimKeys: generateDkimKey });
    const d = await s.added();
    s.dns.zone = correctZone(d);
    expect(s.dns.zone.txt![recordOf(d, "dkim").host]![0]).toBeInstanceOf(Array);
    const after = await verified(s, d.id);
    expect(after).toMatchObject({
      status: "verified",
      dkimVerified: true,
      returnPathVerified: true,
      dmarcStatus: "none",
      ownershipVerifiedAt: "2026-11-22T10:00:00.000Z",
      lastCheckedAt: "2026-11-22T10:00:00.000Z",
      lastError: null,
    });
    expect(after.dnsRecords.map((r) => r.status)).toEqual(["verified", "verified", "verified", "verified", "verified"]);
    expect(recordOf(after, "dkim").found).toEqual([recordOf(d, "dkim").value]);
    const list = await s.list();
    expect(list.defaultDomainId).toBe(d.id);
    expect(list.holdReason).toBe("");
  });

  it("verifies a DKIM key split at odd places with whitespace folded into p=", async () => {
    const s = await setup();
    const d = await s.added();
    const zone = correctZone(d);
    const value = recordOf(d, "dkim").value;
    const folded = value.replace(/p=(.{100})/, "p=$1 \t");
    zone.txt![recordOf(d, "dkim").host] = [[folded.slice(0, 7), folded.slice(7, 250), folded.slice(250, 300), folded.slice(300)]];
    s.dns.zone = zone;
    expect((await verified(s, d.id)).dkimVerified).toBe(true);
  });

  it.each([
    ["missing", (zone: any, host: string) => delete zone.txt[host], /DKIM: no DKIM record at outreach\d+\._domainkey\.example\.com; expected one TXT record "v=DKIM1; k=rsa; p=/],
    ["present twice", (zone: any, host: string) => zone.txt[host].push(zone.txt[host][0]), /DKIM: 2 DKIM records at outreach\d+\._domainkey\.example\.com/],
    [
      "published with another key",
      (zone: any, host: string) => (zone.txt[host] = [splitTxt(`v=DKIM1; k=rsa; p=${"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + "x".repeat(300)}`)]),
      /DKIM: the DKIM record at outreach\d+\._domainkey\.example\.com has another public key/,
    ],
  ])("fails a domain whose DKIM record is %s, naming host and expectation", async (_case, edit, message) => {
    const s = await setup();
    const d = await s.added();
    const zone = correctZone(d);
    edit(zone, recordOf(d, "dkim").host);
    s.dns.zone = zone;
    const after = await verified(s, d.id);
    expect(after.status).toBe("failed");
    expect(after.dkimVerified).toBe(false);
    expect(recordOf(after, "dkim").status).toBe("failed");
    expect(after.lastError).toMatch(message);
    expect(recordOf(after, "ownership").status).toBe("verified");
    expect(after.ownershipVerifiedAt).not.toBeNull();
  });

  it("fails the return path when the CNAME points elsewhere", async () => {
    const s = await setup();
    const d = await s.added();
    const zone = correctZone(d);
    zone.cname!["bounce.example.com"] = "bounces.someone-else.net";
    s.dns.zone = zone;
    const after = await verified(s, d.id);
    expect(after).toMatchObject({ status: "failed", returnPathVerified: false, dkimVerified: true });
    expect(recordOf(after, "return_path")).toMatchObject({ status: "failed", found: ["bounces.someone-else.net"] });
    expect(after.lastError).toBe(
      "return path: bounce.example.com is a CNAME to bounces.someone-else.net; expected a CNAME to bounces.outreach.localhost",
    );
  });

  it("fails ownership when the TXT at _outreach carries another token", async () => {
    const s = await setup();
    const d = await s.added();
    const zone = correctZone(d);
    zone.txt!["_outreach.example.com"] = ["outreach-verification=someone-elses-token"];
    s.dns.zone = zone;
    const after = await verified(s, d.id);
    expect(after.status).toBe("failed");
    expect(after.ownershipVerifiedAt).toBeNull();
    expect(after.lastError).toMatch(/^ownership: the TXT records at _outreach\.example\.com do not include this domain's token; expected a TXT record "outreach-verification=/);
  });

  it("takes DMARC from the organisational domain when the domain has none, using its sp= policy", async () => {
    const s = await setup();
    const d = await s.added("mail.example.co.uk");
    const zone = correctZone(d);
    delete zone.txt!["_dmarc.mail.example.co.uk"];
    zone.txt!["_dmarc.example.co.uk"] = ["v=DMARC1; p=reject; sp=quarantine; rua=mailto:d@example.co.uk"];
    s.dns.zone = zone;
    const after = await verified(s, d.id);
    expect(after.status).toBe("verified");
    expect(after.dmarcStatus).toBe("quarantine");
    expect(recordOf(after, "dmarc")).toMatchObject({ status: "verified", found: ["v=DMARC1; p=reject; sp=quarantine; rua=mailto:d@example.co.uk"] });
    expect(s.dns.queries).toEqual(expect.arrayContaining(["_dmarc.mail.example.co.uk TXT", "_dmarc.example.co.uk TXT"]));
  });

  it("reports DMARC missing, invalid (two records) and the policy found, without blocking verification", async () => {
    const s = await setup();
    const d = await s.added();
    const zone = correctZone(d);
    delete zone.txt!["_dmarc.example.com"];
    s.dns.zone = zone;
    let after = await verified(s, d.id);
    expect(after).toMatchObject({ status: "verified", dmarcStatus: "missing" });
    expect(recordOf(after, "dmarc").error).toMatch(/no DMARC record at _dmarc\.example\.com/);
    zone.txt!["_dmarc.example.com"] = ["v=DMARC1; p=none", "v=DMARC1; p=reject"];
    after = await verified(s, d.id);
    expect(after.dmarcStatus).toBe("invalid");
    zone.txt!["_dmarc.example.com"] = ["v=DMARC1; p=reject", "unrelated text"];
    after = await verified(s, d.id);
    expect(after.dmarcStatus).toBe("reject");
  });

  it("marks two SPF records at the domain invalid, as advice that does not block verification", async () => {
    const s = await setup();
    const d = await s.added();
    const zone = correctZone(d);
    zone.txt!["example.com"] = ["v=spf1 include:_spf.bounces.outreach.localhost ~all", "v=spf1 include:_spf.google.com ~all", "google-site-verification=abc"];
    s.dns.zone = zone;
    const after = await verified(s, d.id);
    expect(after.status).toBe("verified");
    expect(recordOf(after, "spf")).toMatchObject({ status: "failed", required: false });
    expect(recordOf(after, "spf").error).toMatch(/^invalid: 2 SPF records at example\.com/);
    expect(recordOf(after, "spf").found).toHaveLength(2);
  });

  it("keeps verified records verified when the DNS server then times out, and says so in lastError", async () => {
    const s = await setup();
    const d = await s.added();
    s.dns.zone = correctZone(d);
    const first = await verified(s, d.id);
    s.dns.mode = "silent";
    s.instance.clock.advance(60_000);
    const after = await verified(s, d.id);
    expect(after).toMatchObject({ status: "verified", dkimVerified: true, returnPathVerified: true, dmarcStatus: "none" });
    expect(after.dnsRecords).toEqual(first.dnsRecords);
    expect(after.ownershipVerifiedAt).toBe(first.ownershipVerifiedAt);
    expect(after.lastCheckedAt).not.toBe(first.lastCheckedAt);
    expect(after.lastError).toMatch(/^temporary DNS failure \(the DNS server did not answer for .* in time\); records verified earlier were kept$/);
  });

  it("keeps verified records verified when the DNS server is down (connection refused)", async () => {
    const s = await setup();
    const d = await s.added();
    s.dns.zone = correctZone(d);
    const first = await verified(s, d.id);
    await s.dns.close();
    const after = await verified(s, d.id);
    expect(after.status).toBe("verified");
    expect(after.dnsRecords).toEqual(first.dnsRecords);
    expect(after.lastError).toMatch(/^temporary DNS failure/);
  });

  it("does downgrade a verified domain when DNS definitely answers that a record is gone", async () => {
    const s = await setup();
    const d = await s.added();
    s.dns.zone = correctZone(d);
    await verified(s, d.id);
    delete s.dns.zone.txt![recordOf(d, "dkim").host];
    const after = await verified(s, d.id);
    expect(after).toMatchObject({ status: "failed", dkimVerified: false, returnPathVerified: true });
    expect(after.lastError).toMatch(/^DKIM: no DKIM record at /);
    expect((await s.list()).defaultDomainId).toBeNull();
  });

  it("marks records of a never-verified domain temporary_failure when DNS is unreachable, and the domain stays pending", async () => {
    const s = await setup({ dnsServers: [`127.0.0.1:${await closedPort()}`] });
    const d = await s.added();
    const after = await verified(s, d.id);
    expect(after.status).toBe("pending");
    expect(after.dnsRecords.map((r) => r.status)).toEqual(Array(5).fill("temporary_failure"));
    expect(after.lastError).toMatch(/^ownership: temporary DNS failure: /);
    expect(after.dmarcStatus).toBeNull();
  });

  it("treats SERVFAIL as temporary", async () => {
    const s = await setup();
    const d = await s.added();
    s.dns.mode = "servfail";
    const after = await verified(s, d.id);
    expect(recordOf(after, "dkim")).toMatchObject({ status: "temporary_failure", error: expect.stringMatching(/SERVFAIL/) });
  });

  it("rate-limits verification per domain with 429 and Retry-After, and allows it again once the interval has passed", async () => {
    const s = await setup();
    const d = await s.added();
    const other = await s.added("example.org");
    s.dns.zone = correctZone(d);
    expect((await s.verify(d.id)).status).toBe(200);
    s.instance.clock.advance(4_000);
    const res = await s.verify(d.id);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("6");
    expect((await res.json()).error).toMatch(/example\.com was checked moments ago/);
    expect((await s.verify(other.id)).status).toBe(200);
    s.instance.clock.advance(6_000);
    expect((await s.verify(d.id)).status).toBe(200);
  });
});

describe("removing and workspace isolation", () => {
  it("removes a domain; a second removal and a verify of it are 404s", async () => {
    const s = await setup();
    const d = await s.added();
    const res = await s.server.request(`${BASE}/${d.id}`, { method: "DELETE", token: s.instance.token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect((await s.list()).domains).toEqual([]);
    expect((await s.server.request(`${BASE}/${d.id}`, { method: "DELETE", token: s.instance.token })).status).toBe(404);
    expect((await s.verify(d.id)).status).toBe(404);
  });

  it("answers 404 for another workspace's domain on verify and delete, and leaves it alone", async () => {
    const s = await setup();
    const bob = s.instance.services.identity.bootstrap({ name: "Bob", email: "bob@example.net", team: "Bobco", plan: "self-hosted" });
    await s.server.request(`${BASE}?teamId=${bob.team.id}`, {
      method: "POST",
      token: bob.token,
      json: { domain: "bob.example", senderEmail: "b@bob.example", senderName: "Bob" },
    });
    const bobs = (await (await s.server.request(`${BASE}?teamId=${bob.team.id}`, { token: bob.token })).json()) as SendingDomainList;
    const id = bobs.domains[0]!.id;
    const verify = await s.verify(id);
    expect(verify.status).toBe(404);
    expect((await verify.json()).error).toBe(`sending domain ${id} not found`);
    expect((await s.server.request(`${BASE}/${id}`, { method: "DELETE", token: s.instance.token })).status).toBe(404);
    const still = (await (await s.server.request(`${BASE}?teamId=${bob.team.id}`, { token: bob.token })).json()) as SendingDomainList;
    expect(still.domains.map((x) => x.id)).toEqual([id]);
    expect(s.dns.queries).toEqual([]);
  });
});

describe("the DKIM private key at rest", () => {
  it("never appears in clear in the database or its WAL, and matches the published public key", async () => {
    const s = await setup();
    const d = await s.added();
    const { privateKeyPem, selector } = s.instance.services.sendingDomains.dkimSigningKey(s.instance.teamId, d.id);
    expect(recordOf(d, "dkim").name).toBe(`${selector}._domainkey`);
    const published = createPublicKey(privateKeyPem).export({ type: "spki", format: "der" }).toString("base64");
    expect(recordOf(d, "dkim").value).toBe(`v=DKIM1; k=rsa; p=${published}`);

    const body = privateKeyPem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
    const needles = [privateKeyPem, "PRIVATE KEY", body, ...privateKeyPem.split("\n").filter((l) => l.length === 64).slice(0, 5)];
    const dbPath = databasePath(s.instance.dataDir);
    const wal = readFileSync(`${dbPath}-wal`, "latin1");
    s.instance.services.deps.db.pragma("wal_checkpoint(FULL)");
    const main = readFileSync(dbPath, "latin1");
    expect(main.length).toBeGreaterThan(0);
    expect(main).toContain(d.ownershipToken);
    for (const needle of needles) {
      expect(main.includes(needle)).toBe(false);
      expect(wal.includes(needle)).toBe(false);
    }
    // The ciphertext is bound to its row: under another domain's id it does not decrypt.
    const row = s.instance.services.deps.db.prepare("SELECT dkim_private_key_ct FROM sending_domains WHERE id = ?").get(d.id) as {
      dkim_private_key_ct: string;
    };
    expect(() => s.instance.services.deps.keyring.decrypt(row.dkim_private_key_ct, dkimKeyAad({ team_id: s.instance.teamId, id: "dom_other" }))).toThrow(
      /failed authentication/,
    );
  });
});

describe("OpenAPI", () => {
  it("documents endpoints 5-8", async () => {
    const s = await setup();
    const doc = await (await s.server.request("/api/v1/openapi.json")).json();
    expect(Object.keys(doc.paths[BASE])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(doc.paths[`${BASE}/{id}/verify`])).toEqual(["post"]);
    expect(Object.keys(doc.paths[`${BASE}/{id}`])).toEqual(["delete"]);
  });
});
