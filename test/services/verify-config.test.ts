import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/services/config.js";

describe("address verification settings", () => {
  it("default to no probe, port 25, 10 connections a minute per domain, no private MX, the public URL's host as EHLO name", () => {
    expect(loadServerConfig({ OUTREACH_PUBLIC_URL: "https://outreach.example.com" }).verify).toEqual({
      smtp: false,
      port: 25,
      heloName: "outreach.example.com",
      perDomainPerMinute: 10,
      timeoutMs: 15_000,
      allow: [],
    });
  });

  it("are read from the environment", () => {
    const config = loadServerConfig({
      OUTREACH_VERIFY_SMTP: "1",
      OUTREACH_VERIFY_SMTP_PORT: "2525",
      OUTREACH_HELO_NAME: "mail.example.org",
      OUTREACH_VERIFY_PER_DOMAIN_PER_MINUTE: "3",
      OUTREACH_VERIFY_SMTP_TIMEOUT_MS: "5000",
      OUTREACH_VERIFY_SMTP_ALLOW: "127.0.0.0/8, 10.1.0.0/16",
    });
    expect(config.verify).toEqual({ smtp: true, port: 2525, heloName: "mail.example.org", perDomainPerMinute: 3, timeoutMs: 5000, allow: ["127.0.0.0/8", "10.1.0.0/16"] });
  });

  it.each([
    ["OUTREACH_VERIFY_SMTP", "maybe"],
    ["OUTREACH_VERIFY_SMTP_PORT", "0"],
    ["OUTREACH_VERIFY_SMTP_PORT", "smtp"],
    ["OUTREACH_HELO_NAME", "not a host!"],
    ["OUTREACH_VERIFY_PER_DOMAIN_PER_MINUTE", "-1"],
    ["OUTREACH_VERIFY_SMTP_TIMEOUT_MS", "10"],
    ["OUTREACH_VERIFY_SMTP_ALLOW", "localhost"],
  ])("refuse %s=%j, naming the variable", (name, value) => {
    expect(() => loadServerConfig({ [name]: value })).toThrow(name);
  });
});
