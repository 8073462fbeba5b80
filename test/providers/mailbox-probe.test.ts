import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { HostGate } from "../../src/providers/mailbox-probe/host-gate.js";
import { MailboxProbe } from "../../src/providers/mailbox-probe/mailbox-probe.js";
import { AddressPolicy } from "../../src/providers/web/address-policy.js";
import { startMailboxServers } from "../helpers/mailbox-servers.js";

function probeFor(port: number, allowCidrs: string[], clock = new ManualClock()) {
  return new MailboxProbe({ heloName: "probe.test", port, timeoutMs: 2000, perDomainPerMinute: 10, allowCidrs, addressesOf: async (host) => [host], clock });
}

describe("mailbox probe", () => {
  it("refuses private and loopback MX addresses unless allow-listed (the classifier; no traffic)", () => {
    const production = new AddressPolicy([]);
    for (const ip of ["127.0.0.2", "10.1.2.3", "192.168.0.10", "169.254.169.254", "::1", "fd00::1", "100.64.0.1"]) expect(production.isAllowed(ip)).toBe(false);
    expect(production.isAllowed("8.8.8.8")).toBe(true);
    const tests = new AddressPolicy(["127.0.0.0/8"]);
    expect(tests.isAllowed("127.0.0.5")).toBe(true);
    expect(tests.isAllowed("10.1.2.3")).toBe(false);
  });

  it("without the allow-list it never connects to a loopback MX", async () => {
    const { port, servers } = await startMailboxServers([{ behaviour: "strict", mailboxes: ["a@x.test"] }]);
    const outcome = await probeFor(port, []).probe("x.test", ["127.0.0.2"], ["a@x.test"], "bounce@b.test");
    expect(outcome).toMatchObject({ kind: "unreachable" });
    expect(outcome.kind === "unreachable" && outcome.reason).toContain("non-public addresses");
    expect(servers[0]!.connections).toBe(0);
  });

  it("keeps one connection per MX host at a time, however many domains it serves", async () => {
    const { port, servers } = await startMailboxServers([{ behaviour: "strict", mailboxes: ["a@one.test", "a@two.test", "a@three.test"] }]);
    servers[0]!.latencyMs = 20;
    const probe = probeFor(port, ["127.0.0.0/8"]);
    const outcomes = await Promise.all(["one.test", "two.test", "three.test"].map((d) => probe.probe(d, ["127.0.0.2"], [`a@${d}`, `b@${d}`], "bounce@b.test")));
    expect(outcomes.map((o) => o.kind)).toEqual(["answered", "answered", "answered"]);
    expect(servers[0]!.connections).toBe(3);
    expect(servers[0]!.maxConcurrent).toBe(1);
    for (const session of servers[0]!.sessions) {
      expect(session.ehlo).toBe("probe.test");
      expect(session.data).toBe(false);
      expect(session.rcptTo).toHaveLength(3);
    }
  });

  it("allows at most N connections per domain per minute", async () => {
    const clock = new ManualClock("2026-11-22T10:00:00.000Z");
    const gate = new HostGate(3, () => clock.now().getTime(), (ms, signal) => clock.sleep(ms, signal));
    const started: number[] = [];
    for (let i = 0; i < 5; i++) await gate.withConnection(`10.0.0.${i}`, "busy.test", async () => void started.push(clock.now().getTime() - Date.parse("2026-11-22T10:00:00.000Z")));
    expect(started).toEqual([0, 0, 0, 60_000, 60_000]);
  });
});
