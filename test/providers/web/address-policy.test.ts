import { describe, expect, it } from "vitest";
import { AddressPolicy, canonicalIp } from "../../../src/providers/web/address-policy.js";

// Classifier only: no traffic is sent to any of these addresses.
const REFUSED = [
  "169.254.169.254", // cloud metadata (link-local)
  "169.254.0.1",
  "127.0.0.1",
  "127.255.255.254",
  "0x7f.1", // hex, short form of 127.0.0.1
  "2130706433", // decimal 127.0.0.1
  "017700000001", // octal 127.0.0.1
  "0x7f000001",
  "127.1",
  "::1",
  "::ffff:127.0.0.1", // IPv4-mapped loopback
  "::ffff:7f00:1",
  "[::ffff:169.254.169.254]",
  "::ffff:10.0.0.1",
  "fc00::1", // unique local fc00::/7
  "fd12:3456:789a::1",
  "fe80::1", // link-local fe80::/10
  "febf::1",
  "100.64.0.1", // CGNAT 100.64.0.0/10
  "100.127.255.254",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.0.1",
  "192.168.255.255",
  "0.0.0.0",
  "::",
  "255.255.255.255",
  "224.0.0.1", // multicast
  "239.255.255.250",
  "ff02::1",
  "192.0.2.1", // documentation
  "198.51.100.7",
  "203.0.113.9",
  "198.18.0.1", // benchmarking
  "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
  "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
  "2001:db8::1", // documentation
  "2002:7f00:1::", // 6to4 of 127.0.0.1
  "240.0.0.1", // reserved
  "::127.0.0.1", // IPv4-compatible (deprecated) loopback
  "0:0:0:0:0:ffff:127.0.0.1",
  "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
  "100::1", // discard-only
  "fec0::1", // site-local (deprecated)
  "not-an-ip",
];
const ALLOWED = ["::ffff:8.8.8.8", "8.8.8.8", "1.1.1.1", "2606:4700::1111", "93.184.216.34", "2a00:1450:4001:80b::200e", "172.32.0.1", "100.128.0.1", "11.0.0.1"];

describe("AddressPolicy (no allow-list)", () => {
  const policy = new AddressPolicy();
  it.each(REFUSED)("refuses %s", (address) => {
    expect(policy.isAllowed(address)).toBe(false);
  });
  it.each(ALLOWED)("allows the public address %s", (address) => {
    expect(policy.isAllowed(address)).toBe(true);
  });
  it("covers at least 30 addresses", () => {
    expect(REFUSED.length + ALLOWED.length).toBeGreaterThanOrEqual(30);
  });
});

describe("AddressPolicy with OUTREACH_FETCH_ALLOW", () => {
  const policy = new AddressPolicy(["127.0.0.1/32", "10.1.0.0/16", "fd00::/8"]);
  it("allows exactly the configured ranges, in every literal form", () => {
    expect(policy.isAllowed("127.0.0.1")).toBe(true);
    expect(policy.isAllowed("::ffff:127.0.0.1")).toBe(true);
    expect(policy.isAllowed("2130706433")).toBe(true);
    expect(policy.isAllowed("10.1.2.3")).toBe(true);
    expect(policy.isAllowed("fd00::5")).toBe(true);
    expect(policy.isAllowListed("10.1.2.3")).toBe(true);
  });
  it("still refuses what is outside them", () => {
    expect(policy.isAllowed("127.0.0.2")).toBe(false);
    expect(policy.isAllowed("10.2.0.1")).toBe(false);
    expect(policy.isAllowed("169.254.169.254")).toBe(false);
    expect(policy.isAllowListed("8.8.8.8")).toBe(false);
  });
});

describe("canonicalIp", () => {
  it("canonicalises IP literals and leaves names alone", () => {
    expect(canonicalIp("0x7f.1")).toBe("127.0.0.1");
    expect(canonicalIp("[::ffff:7f00:1]")).toBe("127.0.0.1");
    expect(canonicalIp("example.com")).toBeUndefined();
    expect(canonicalIp("cafe.de")).toBeUndefined();
  });
});
