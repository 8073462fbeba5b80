import { describe, expect, it } from "vitest";
import { NodeDnsLookup } from "../../src/providers/dns/resolver.js";
import { closedPort, startDnsServer } from "../helpers/dns-server.js";

const long = "p=" + "A".repeat(390);

describe("NodeDnsLookup against a DNS server on 127.0.0.1", () => {
  it("joins the character-strings of a split TXT record and keeps separate records apart", async () => {
    const dns = await startDnsServer({ txt: { "sel._domainkey.example.com": [["v=DKIM1; k=rsa; ", long.slice(0, 200), long.slice(200)], "other"] } });
    const lookup = new NodeDnsLookup({ servers: [dns.address], timeoutMs: 500, tries: 1 });
    const answer = await lookup.txt("sel._domainkey.example.com");
    expect(answer).toEqual({ kind: "found", records: [`v=DKIM1; k=rsa; ${long}`, "other"] });
  });

  it("answers two long TXT records (over 512 bytes, retried over TCP)", async () => {
    const dns = await startDnsServer({ txt: { "x.example.com": [["a".repeat(250), "b".repeat(250)], ["c".repeat(250), "d".repeat(250)]] } });
    const lookup = new NodeDnsLookup({ servers: [dns.address], timeoutMs: 500, tries: 1 });
    const answer = await lookup.txt("x.example.com");
    expect(answer.kind).toBe("found");
    expect(answer.kind === "found" && answer.records.map((r) => r.length)).toEqual([500, 500]);
  });

  it("reports a CNAME target lower-cased without the trailing dot", async () => {
    const dns = await startDnsServer({ cname: { "bounce.example.com": "Bounces.Example.NET" } });
    const lookup = new NodeDnsLookup({ servers: [dns.address], timeoutMs: 500, tries: 1 });
    expect(await lookup.cname("bounce.example.com")).toEqual({ kind: "found", records: ["bounces.example.net"] });
  });

  it("tells NXDOMAIN and no-data (missing) apart from SERVFAIL, timeouts and refused connections (temporary)", async () => {
    const dns = await startDnsServer({ txt: { "example.com": ["v=spf1 -all"] } });
    const lookup = new NodeDnsLookup({ servers: [dns.address], timeoutMs: 300, tries: 1 });
    expect((await lookup.txt("nothing.example.com")).kind).toBe("missing");
    expect((await lookup.cname("example.com")).kind).toBe("missing");
    dns.mode = "servfail";
    expect(await lookup.txt("example.com")).toMatchObject({ kind: "temporary", reason: expect.stringContaining("SERVFAIL") });
    dns.mode = "silent";
    expect(await lookup.txt("example.com")).toMatchObject({ kind: "temporary" });
    const down = new NodeDnsLookup({ servers: [`127.0.0.1:${await closedPort()}`], timeoutMs: 300, tries: 1 });
    expect((await down.txt("example.com")).kind).toBe("temporary");
  });
});
