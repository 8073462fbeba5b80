import { describe, expect, it } from "vitest";
import type { SendingDomain } from "../../src/core/schemas/sending-domain.js";
import { ManualClock } from "../../src/core/clock.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { startDnsServer, type TestDnsServer } from "../helpers/dns-server.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";
import { correctZone } from "../helpers/sending-domains.js";

async function env(): Promise<{ env: NodeJS.ProcessEnv; dns: TestDnsServer }> {
  const dns = await startDnsServer();
  const e = cliEnv({
      OUTREACH_DATA_DIR: tempDir(),
      OUTREACH_DNS_SERVERS: dns.address,
      OUTREACH_DNS_TIMEOUT_MS: "150",
      OUTREACH_DNS_TRIES: "1",
      OUTREACH_DOMAIN_VERIFY_INTERVAL: "0",
  });
  const init = await runCli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"], { env: e });
  expect(init.code).toBe(0);
  return { dns, env: e };
}

async function addJson(e: NodeJS.ProcessEnv, domain = "example.com"): Promise<SendingDomain> {
  const res = await runCli(["domains", "add", domain, "--sender-email", `hello@${domain}`, "--sender-name", "Acme Sales", "--json"], { env: e });
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout) as SendingDomain;
}

describe("outreach domains add", () => {
  it("prints the records to publish as tab-separated rows when piped, and the next step on stderr", async () => {
    const { env: e } = await env();
    const res = await runCli(["domains", "add", "Example.COM", "--sender-email", "hello@example.com", "--sender-name", "Acme"], { env: e });
    expect(res.code).toBe(0);
    const rows = res.stdout.trim().split("\n").map((l) => l.split("\t"));
    expect(rows.map((r) => [r[0], r[1], r[2], r[4], r[5]])).toEqual([
      ["ownership", "TXT", "_outreach.example.com", "yes", "pending"],
      ["DKIM", "TXT", expect.stringMatching(/^outreach\d+\._domainkey\.example\.com$/), "yes", "pending"],
      ["return path", "CNAME", "bounce.example.com", "yes", "pending"],
      ["SPF", "TXT", "example.com", "advised", "pending"],
      ["DMARC", "TXT", "_dmarc.example.com", "advised", "pending"],
    ]);
    expect(rows[1]![3]).toMatch(/^v=DKIM1; k=rsa; p=/);
    expect(res.stderr).toMatch(/Added example\.com \(dom_\w+\)/);
    expect(res.stderr).toMatch(/outreach domains verify example\.com --wait/);
  });

  it("prints the domain as JSON with --json and a table on a terminal", async () => {
    const { env: e } = await env();
    const d = await addJson(e);
    expect(d).toMatchObject({ domain: "example.com", senderEmail: "hello@example.com", status: "pending" });
    expect(d.dnsRecords).toHaveLength(5);
    const tty = await runCli(["domains", "list"], { env: e, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/DOMAIN/);
    expect(tty.stdout).toMatch(/example\.com/);
  });

  it("exits 2 with the missing flag named, and 2 with the server's reason for a bad domain", async () => {
    const { env: e } = await env();
    let res = await runCli(["domains", "add", "example.com", "--sender-name", "A"], { env: e });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/missing --sender-email/);
    res = await runCli(["domains", "add", "co.uk", "--sender-email", "a@co.uk", "--sender-name", "A"], { env: e });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/domain is a public suffix/);
  });

  it("exits 5 when the domain is already there", async () => {
    const { env: e } = await env();
    await addJson(e);
    const res = await runCli(["domains", "add", "example.com", "--sender-email", "a@example.com", "--sender-name", "A"], { env: e });
    expect(res.code).toBe(5);
  });
});

describe("outreach domains list", () => {
  it("lists one row per domain when piped, and the API answer with --json", async () => {
    const { env: e } = await env();
    const d = await addJson(e);
    const res = await runCli(["domains", "list"], { env: e });
    expect(res.code).toBe(0);
    const [row] = res.stdout.trimEnd().split("\n").map((l) => l.split("\t"));
    expect(row!.slice(0, 8)).toEqual(["", d.id, "example.com", "pending", "no", "off", "no", ""]);
    expect(res.stderr).toMatch(/held: no sending domain is verified yet/);
    const json = JSON.parse((await runCli(["domains", "list", "--json"], { env: e })).stdout);
    expect(json).toMatchObject({ defaultDomainId: null, canManage: true, canUseCustomSender: true });
    expect(json.domains[0].id).toBe(d.id);
  });
});

describe("outreach domains verify", () => {
  it("checks once and prints each record's status, with the reason, and exits 0", async () => {
    const { env: e } = await env();
    await addJson(e);
    const res = await runCli(["domains", "verify", "example.com"], { env: e });
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/DKIM +TXT +outreach\d+\._domainkey\.example\.com: failed \(no DKIM record at/);
    expect(res.stderr).toMatch(/example\.com is failed: ownership: no TXT record at _outreach\.example\.com/);
    const rows = res.stdout.trim().split("\n").map((l) => l.split("\t"));
    expect(rows.map((r) => r[5])).toEqual(["failed", "failed", "failed", "failed", "failed"]);
    expect(rows[2]![6]).toBe("no CNAME record at bounce.example.com; expected a CNAME to bounces.outreach.localhost");
  });

  it("--wait re-checks until the records appear, showing each status change, then prints the verified state", async () => {
    const { env: e, dns } = await env();
    const d = await addJson(e);
    // Waits pass on the injected clock; the records are published during the first one.
    const clock = new ManualClock();
    clock.onSleep(() => (dns.zone = correctZone(d)));
    const res = await runCli(["domains", "verify", d.id, "--wait", "--interval", "100ms", "--timeout", "20s", "--json"], { env: e, deps: { clock } });
    expect(res.code).toBe(0);
    const final = JSON.parse(res.stdout) as SendingDomain;
    expect(final).toMatchObject({ status: "verified", dkimVerified: true, returnPathVerified: true });
    const dkimLines = res.stderr.split("\n").filter((l) => l.startsWith("DKIM "));
    expect(dkimLines.map((l) => /: (\w+)/.exec(l)![1])).toEqual(["failed", "verified"]);
    expect(res.stderr).toMatch(/checking again in 100 ms \(attempt 2\)/);
    expect(res.stderr).toMatch(/example\.com is verified\./);
  });

  it("--wait gives up after --timeout with exit 1 and the last error", async () => {
    const { env: e } = await env();
    await addJson(e);
    const clock = new ManualClock();
    const res = await runCli(["domains", "verify", "example.com", "--wait", "--interval", "50ms", "--timeout", "30m"], { env: e, deps: { clock } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/example\.com is still failed after 30m: ownership: no TXT record/);
    // Backoff from 50 ms, doubling up to 5 minutes, until 30 minutes have passed on the clock.
    expect(res.stderr).toMatch(/checking again in 50 ms \(attempt 2\)/);
    expect(res.stderr).toMatch(/checking again in 300 s \(attempt \d+\)/);
    expect(clock.now().getTime() - new ManualClock().now().getTime()).toBe(30 * 60_000);
    expect(res.stdout).toMatch(/_outreach\.example\.com/);
  });

  it("exits 3 for a domain that is not in the workspace and 2 for a bad duration", async () => {
    const { env: e } = await env();
    expect((await runCli(["domains", "verify", "nope.example"], { env: e })).code).toBe(3);
    const res = await runCli(["domains", "verify", "x.example", "--wait", "--timeout", "soon"], { env: e });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--timeout must be a duration/);
  });
});

describe("outreach domains rm", () => {
  it("refuses without --yes when there is no terminal, removes with --yes", async () => {
    const { env: e } = await env();
    const d = await addJson(e);
    let res = await runCli(["domains", "rm", "example.com"], { env: e });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/pass --yes to remove example\.com/);
    res = await runCli(["domains", "rm", d.id, "--yes"], { env: e });
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(`Removed example.com (${d.id})`);
    expect((await runCli(["domains", "list"], { env: e })).stdout).toBe("");
    expect((await runCli(["domains", "rm", d.id, "--yes"], { env: e })).code).toBe(3);
  });
});

describe("help", () => {
  it("every domains command has --help with an example", async () => {
    for (const verb of ["add", "list", "verify", "rm"]) {
      const res = await runCli(["domains", verb, "--help"]);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`\\$ outreach domains ${verb}`));
    }
  });
});

describe("outreach domains against a remote server", () => {
  it("adds and lists through --base-url with the workspace id taken from /api/v1/teams", async () => {
    const dns = await startDnsServer();
    const instance = createTestInstance({ config: { dnsServers: [dns.address], dnsTimeoutMs: 150, dnsTries: 1 } });
    const server = await startTestServer(instance.services);
    const e = cliEnv({ OUTREACH_BASE_URL: server.url, OUTREACH_TOKEN: instance.token });
    const add = await runCli(["domains", "add", "example.com", "--sender-email", "hi@example.com", "--sender-name", "Acme", "--json"], { env: e });
    expect(add.code).toBe(0);
    const d = JSON.parse(add.stdout) as SendingDomain;
    dns.zone = correctZone(d);
    const verify = await runCli(["domains", "verify", "example.com", "--json"], { env: e });
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ id: d.id, status: "verified" });
    // Checked moments ago: the client waits as the server asks (on the server's clock here), then checks.
    const again = await runCli(["domains", "verify", "example.com"], { env: e, deps: { clock: instance.clock } });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/rate limited by http:\/\/127\.0\.0\.1:\d+: waiting \d+ s as it asks, then retrying \(1 of 5\)/);
  });
});
