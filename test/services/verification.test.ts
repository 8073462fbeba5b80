import { describe, expect, it } from "vitest";
import type { Verification } from "../../src/core/schemas/verification.js";
import { startDnsServer, type TestZone } from "../helpers/dns-server.js";
import { createTestInstance, type TestInstance } from "../helpers/instance.js";
import { startMailboxServers, type MailboxServer } from "../helpers/mailbox-servers.js";

const HELO = "probe.outreach.test";

/**
 * A world of mail domains on 127.0.0.x: the test's DNS server points each domain's MX at
 * one of the test's SMTP servers (all on one port, as port 25 is in production).
 */
async function world(options: { smtp?: boolean; dnsMode?: "answer" | "silent" } = {}) {
  const { port, servers } = await startMailboxServers([
    { behaviour: "strict", mailboxes: ["anna@strict.test", "info@aonly.test", "carl@pref.test"] }, // 127.0.0.2
    { behaviour: "catch-all" }, // .3
    { behaviour: "greylist" }, // .4
    { behaviour: "tarpit" }, // .5
    { behaviour: "drop-after-rcpt" }, // .6
    { behaviour: "strict-starttls", mailboxes: ["bob@tls.test"] }, // .7
  ]);
  const zone: TestZone = {
    mx: {
      "strict.test": [{ exchange: "mx1.strict.test", priority: 10 }],
      "catchall.test": [{ exchange: "mx.catchall.test", priority: 10 }],
      "grey.test": [{ exchange: "mx.grey.test", priority: 10 }],
      "tarpit.test": [{ exchange: "mx.tarpit.test", priority: 10 }],
      "drop.test": [{ exchange: "mx.drop.test", priority: 10 }],
      "tls.test": [{ exchange: "mx.tls.test", priority: 10 }],
      "nullmx.test": [{ exchange: ".", priority: 0 }],
      // Preference order: the lower number first; it refuses connections (nothing listens on .9).
      "pref.test": [
        { exchange: "backup.pref.test", priority: 20 },
        { exchange: "dead.pref.test", priority: 5 },
      ],
      "mailinator.com": [{ exchange: "mx.catchall.test", priority: 10 }],
    },
    a: {
      "mx1.strict.test": ["127.0.0.2"],
      "mx.catchall.test": ["127.0.0.3"],
      "mx.grey.test": ["127.0.0.4"],
      "mx.tarpit.test": ["127.0.0.5"],
      "mx.drop.test": ["127.0.0.6"],
      "mx.tls.test": ["127.0.0.7"],
      "dead.pref.test": ["127.0.0.9"],
      "backup.pref.test": ["127.0.0.2"],
      // No MX: the implicit MX is the domain's own address (RFC 5321 §5.1).
      "aonly.test": ["127.0.0.2"],
    },
    txt: { "nomail.test": ["v=spf1 -all"] },
  };
  const dns = await startDnsServer(zone, options.dnsMode ?? "answer");
  const instance = createTestInstance({
    config: {
      dnsServers: [dns.address],
      dnsTimeoutMs: 300,
      dnsTries: 1,
      verify: { smtp: options.smtp ?? true, port, heloName: HELO, perDomainPerMinute: 10, timeoutMs: 600, allow: ["127.0.0.0/8"] },
    },
  });
  const byName = (behaviour: string) => servers.find((s) => s.behaviour === behaviour)!;
  return { instance, servers, byName, dns };
}

function add(instance: TestInstance, email: string): string {
  return instance.services.contacts.add(instance.teamId, { email, name: email.split("@")[0]! }).id;
}

function verificationOf(instance: TestInstance, id: string): Verification {
  const v = instance.services.contacts.get(instance.teamId, id).verification;
  if (!v) throw new Error(`contact ${id} has no verification`);
  return v;
}

/** What every server saw must follow the contract's dialogue: never DATA, our EHLO name, one connection at a time. */
function assertPoliteDialogue(servers: MailboxServer[]): void {
  for (const server of servers) {
    expect(server.maxConcurrent, server.behaviour).toBeLessThanOrEqual(1);
    for (const session of server.sessions) {
      expect(session.data, `${server.behaviour} saw DATA`).toBe(false);
      if (session.mailFrom.length) expect(session.ehlo).toBe(HELO);
    }
  }
}

describe("address verification", () => {
  it("gives each address the status and reason the contract's rules say", async () => {
    const { instance, servers, byName } = await world();
    const ids = {
      good: add(instance, "anna@strict.test"),
      unknownUser: add(instance, "nobody@strict.test"),
      catchAll: add(instance, "whoever@catchall.test"),
      grey: add(instance, "x@grey.test"),
      tarpit: add(instance, "y@tarpit.test"),
      drop: add(instance, "z@drop.test"),
      tls: add(instance, "bob@tls.test"),
      nullMx: add(instance, "a@nullmx.test"),
      nxdomain: add(instance, "a@doesnotexist.test"),
      noRecords: add(instance, "a@nomail.test"),
      implicit: add(instance, "info@aonly.test"),
      preference: add(instance, "carl@pref.test"),
      disposable: add(instance, "temp@mailinator.com"),
    };
    const result = await instance.services.verification.verify(instance.teamId, { all: true });
    expect(result.checked).toBe(13);
    const v = (key: keyof typeof ids) => verificationOf(instance, ids[key]);

    expect(v("good")).toMatchObject({ status: "deliverable", checks: { syntax: true, mx: true, smtp: "accepted", disposable: false, role: false, tls: "none" } });
    expect(v("unknownUser")).toMatchObject({ status: "undeliverable", checks: { smtp: "rejected" } });
    expect(v("unknownUser").reason).toContain("550 5.1.1");
    expect(v("catchAll")).toMatchObject({ status: "risky", checks: { smtp: "catch-all" } });
    expect(v("grey")).toMatchObject({ status: "unknown", checks: { smtp: "greylisted" } });
    expect(v("grey").reason).toMatch(/greylisting.*try 1 of 3/);
    expect(v("tarpit")).toMatchObject({ status: "unknown", checks: { smtp: "unreachable" } });
    expect(v("drop")).toMatchObject({ status: "unknown", checks: { smtp: "unreachable" } });
    expect(v("tls")).toMatchObject({ status: "deliverable", checks: { smtp: "accepted" } });
    expect(v("tls").checks.tls).toMatch(/^certificate not trusted/);
    expect(v("nullMx")).toMatchObject({ status: "undeliverable", checks: { mx: false, smtp: "skipped" } });
    expect(v("nullMx").reason).toContain("null MX");
    expect(v("nxdomain")).toMatchObject({ status: "undeliverable", reason: "doesnotexist.test does not exist (NXDOMAIN)" });
    expect(v("noRecords")).toMatchObject({ status: "undeliverable", reason: "nomail.test has no MX, A or AAAA record" });
    expect(v("implicit")).toMatchObject({ status: "deliverable", checks: { role: true } });
    expect(v("preference")).toMatchObject({ status: "deliverable" });
    expect(v("disposable")).toMatchObject({ status: "risky", checks: { disposable: true, smtp: "skipped" } });
    expect(result.byStatus).toEqual({ deliverable: 4, undeliverable: 4, risky: 2, unknown: 3 });

    assertPoliteDialogue(servers);
    // The strict server: one session per domain check, each with the addresses then exactly one random one.
    const strict = byName("strict");
    const known = new Set(["anna@strict.test", "nobody@strict.test", "info@aonly.test", "carl@pref.test"]);
    for (const session of strict.sessions) {
      const randoms = session.rcptTo.filter((r) => !known.has(r));
      expect(randoms).toHaveLength(1);
      expect(randoms[0]).toMatch(/^[a-z0-9]{20}@(strict|aonly|pref)\.test$/);
      expect(session.mailFrom).toEqual(["bounce+verify@bounces.outreach.localhost"]);
    }
    expect(byName("strict-starttls").sessions[0]!.secure).toBe(true);
    // The disposable domain was never probed.
    expect(byName("catch-all").sessions.every((s) => s.rcptTo.every((r) => !r.endsWith("@mailinator.com")))).toBe(true);
  });

  it("probes many addresses of one domain in one session, and answers a known catch-all domain without connecting", async () => {
    const { instance, byName, servers } = await world();
    const strictIds = Array.from({ length: 120 }, (_, i) => add(instance, `user${i}@strict.test`));
    const catchIds = Array.from({ length: 30 }, (_, i) => add(instance, `p${i}@catchall.test`));
    const result = await instance.services.verification.verify(instance.teamId, { all: true });
    expect(result.byStatus).toEqual({ deliverable: 0, undeliverable: 120, risky: 30, unknown: 0 });
    const strict = byName("strict");
    expect(strict.connections).toBe(1);
    expect(strict.sessions[0]!.rcptTo).toHaveLength(121);
    expect(byName("catch-all").connections).toBe(1);
    // Later: the domain's catch-all answer stands; no new connection.
    const later = add(instance, "late@catchall.test");
    await instance.services.verification.verify(instance.teamId, { contactIds: [later] });
    expect(verificationOf(instance, later)).toMatchObject({ status: "risky", checks: { smtp: "catch-all" } });
    expect(byName("catch-all").connections).toBe(1);
    expect(catchIds).toHaveLength(30);
    expect(strictIds).toHaveLength(120);
    assertPoliteDialogue(servers);
  });

  it("continues in a new session when a server hangs up after a number of rejections", async () => {
    const { port, servers } = await startMailboxServers([{ behaviour: "error-limit", mailboxes: Array.from({ length: 10 }, (_, i) => `ok${i}@limit.test`) }], 20);
    const dns = await startDnsServer({ mx: { "limit.test": [{ exchange: "mx.limit.test", priority: 10 }] }, a: { "mx.limit.test": ["127.0.0.20"] } });
    const instance = createTestInstance({ config: { dnsServers: [dns.address], verify: { smtp: true, port, heloName: HELO, perDomainPerMinute: 0, timeoutMs: 2000, allow: ["127.0.0.0/8"] } } });
    const good = Array.from({ length: 10 }, (_, i) => add(instance, `ok${i}@limit.test`));
    const bad = Array.from({ length: 10 }, (_, i) => add(instance, `no${i}@limit.test`));
    await instance.services.verification.verify(instance.teamId, { all: true });
    for (const id of good) expect(verificationOf(instance, id).status).toBe("deliverable");
    for (const id of bad) expect(verificationOf(instance, id).status).toBe("undeliverable");
    const server = servers[0]!;
    expect(server.connections).toBeGreaterThan(1);
    assertPoliteDialogue(servers);
    for (const session of server.sessions) expect(session.rcptTo.filter((r) => !/^(ok|no)\d@/.test(r))).toHaveLength(1);
  });

  it("retries a greylisted address after at least 5 minutes, 3 tries in all, and keeps the schedule in the database", async () => {
    const { instance, byName } = await world();
    const id = add(instance, "x@grey.test");
    await instance.services.verification.verify(instance.teamId, { contactIds: [id] });
    expect(byName("greylist").connections).toBe(1);
    // Not yet due: nothing happens.
    instance.clock.advance(4 * 60_000);
    expect(await instance.services.verification.retryDue()).toBe(0);
    instance.clock.advance(60_000);
    expect(await instance.services.verification.retryDue()).toBe(1);
    expect(verificationOf(instance, id).reason).toMatch(/try 2 of 3/);
    expect(byName("greylist").connections).toBe(2);
    instance.clock.advance(5 * 60_000);
    expect(await instance.services.verification.retryDue()).toBe(1);
    expect(verificationOf(instance, id)).toMatchObject({ status: "unknown", checks: { smtp: "greylisted" } });
    expect(verificationOf(instance, id).reason).toMatch(/deferred on all 3 tries/);
    instance.clock.advance(60 * 60_000);
    expect(await instance.services.verification.retryDue()).toBe(0);
    expect(byName("greylist").connections).toBe(3);
  });

  it("a DNS server that never answers gives unknown, never undeliverable", async () => {
    const { instance, servers } = await world({ dnsMode: "silent" });
    const id = add(instance, "anna@strict.test");
    await instance.services.verification.verify(instance.teamId, { contactIds: [id] });
    expect(verificationOf(instance, id)).toMatchObject({ status: "unknown", checks: { mx: false, smtp: "skipped" } });
    expect(verificationOf(instance, id).reason).toMatch(/^DNS did not answer/);
    expect(servers.every((s) => s.connections === 0)).toBe(true);
  });

  it("without the probe, a domain that receives mail gives unknown (mailbox not checked) and no connection is made", async () => {
    const { instance, servers } = await world({ smtp: false });
    const id = add(instance, "anna@strict.test");
    await instance.services.verification.verify(instance.teamId, { contactIds: [id] });
    expect(verificationOf(instance, id)).toMatchObject({ status: "unknown", checks: { mx: true, smtp: "skipped" } });
    expect(verificationOf(instance, id).reason).toMatch(/^mailbox not checked/);
    expect(servers.every((s) => s.connections === 0)).toBe(true);
  });

  it("changing the email clears the verification; the list filters by verification status", async () => {
    const { instance } = await world({ smtp: false });
    const a = add(instance, "a@nullmx.test");
    const b = add(instance, "b@strict.test");
    const fresh = add(instance, "c@strict.test");
    await instance.services.verification.verify(instance.teamId, { contactIds: [a, b] });
    const list = (verification: string[]) =>
      instance.services.contacts.list(instance.teamId, { page: 1, limit: 20, verification: verification as never }).contacts.map((c) => c.id);
    expect(list(["undeliverable"])).toEqual([a]);
    expect(list(["unknown", "undeliverable"]).sort()).toEqual([a, b].sort());
    expect(list(["unverified"])).toEqual([fresh]);
    const updated = instance.services.contacts.update(instance.teamId, a, { email: "a@strict.test" });
    expect(updated.verification).toBeNull();
    expect(instance.services.contacts.get(instance.teamId, a).verification).toBeNull();
    // Another field: the verification stays.
    expect(instance.services.contacts.update(instance.teamId, b, { name: "Bee" }).verification?.status).toBe("unknown");
  });

  it("an all run reads the workspace page by page, reporting progress, and an abort keeps what was written", async () => {
    const { instance } = await world({ smtp: false });
    const emails = Array.from({ length: 1100 }, (_, i) => ({ email: `p${i}@${i % 2 ? "nullmx" : "strict"}.test`, name: `P${i}` }));
    await instance.services.contacts.addMany(instance.teamId, emails);
    const progress: Array<{ checked: number; total: number | null }> = [];
    const result = await instance.services.verification.verify(instance.teamId, { all: true }, { onProgress: (p) => progress.push(p) });
    expect(result).toEqual({ checked: 1100, byStatus: { deliverable: 0, undeliverable: 550, risky: 0, unknown: 550 } });
    // One report per page of 500 at least (three pages), each with the run's total.
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.every((p) => p.total === 1100)).toBe(true);
    expect(progress.map((p) => p.checked)).toEqual([...progress.map((p) => p.checked)].sort((a, b) => a - b));

    // A new run, aborted after its first page: the page stays written, the run continues later.
    instance.clock.advance(60_000);
    const controller = new AbortController();
    const aborted = instance.services.verification.verify(instance.teamId, { all: true }, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(aborted).rejects.toThrow();
    const written = instance.services.deps.db.prepare("SELECT COUNT(*) FROM contacts WHERE verified_at >= ?").pluck().get(instance.clock.now().toISOString()) as number;
    expect(written).toBe(500);
    const rest = await instance.services.verification.verify(instance.teamId, { all: true });
    expect(rest.checked).toBe(600);
  });

  it("unknown and other workspaces' contact ids are the same 404", async () => {
    const { instance } = await world({ smtp: false });
    const otherTeam = instance.services.identity.createTeam({ name: "Other", ownerId: instance.userId, plan: "self-hosted" });
    const foreign = instance.services.contacts.add(otherTeam.id, { email: "f@strict.test", name: "F" }).id;
    const mine = add(instance, "a@strict.test");
    const accept = (ids: string[]) => () => instance.services.verification.accept(instance.teamId, { contactIds: ids });
    expect(accept([mine, "ct_doesnotexist"])).toThrow("contact ct_doesnotexist not found");
    expect(accept([mine, foreign])).toThrow(`contact ${foreign} not found`);
    expect(instance.services.contacts.get(otherTeam.id, foreign).verification).toBeNull();
  });
});
