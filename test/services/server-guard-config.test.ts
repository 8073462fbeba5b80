import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/services/config.js";

describe("shutdown and authentication-guard settings", () => {
  it("have defaults: a 15 s shutdown window, 20 failed authentications a minute, no trusted proxy", () => {
    expect(loadServerConfig({})).toMatchObject({ shutdownTimeoutMs: 15_000, authFailuresPerMinute: 20, trustedProxies: [] });
  });

  it("are read from the environment", () => {
    const config = loadServerConfig({
      OUTREACH_SHUTDOWN_TIMEOUT_MS: "8000",
      OUTREACH_AUTH_FAILURES_PER_MINUTE: "0",
      OUTREACH_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1,::1",
    });
    expect(config).toMatchObject({ shutdownTimeoutMs: 8000, authFailuresPerMinute: 0, trustedProxies: ["10.0.0.0/8", "127.0.0.1/32", "::1/128"] });
  });

  it.each([
    ["OUTREACH_SHUTDOWN_TIMEOUT_MS", "50"],
    ["OUTREACH_SHUTDOWN_TIMEOUT_MS", "15s"],
    ["OUTREACH_AUTH_FAILURES_PER_MINUTE", "-1"],
    ["OUTREACH_TRUSTED_PROXIES", "proxy.internal"],
    ["OUTREACH_TRUSTED_PROXIES", "10.0.0.0/33"],
  ])("reject a bad %s (%s) naming it", (name, value) => {
    expect(() => loadServerConfig({ [name]: value })).toThrow(name);
  });
});
