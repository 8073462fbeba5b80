import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { issueToken } from "../../src/core/tokens.js";
import type { ServerConfig } from "../../src/services/config.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

/** What a guesser sends: a well-formed token (valid checksum) that was never issued. */
const GUESS = issueToken("pat").raw;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** GET `path` from a chosen loopback source address (127.0.0.0/8 is all ours on Linux). */
function getFrom(from: string, url: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { localAddress: from, headers, agent: false }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"] as string | undefined, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function setup(config: Partial<ServerConfig> = {}) {
  const instance = createTestInstance({ config });
  const server = await startTestServer(instance.services);
  const as = (from: string, token: string, extra: Record<string, string> = {}) =>
    getFrom(from, server.url, "/api/v1/user/me", { authorization: `Bearer ${token}`, ...extra });
  return { instance, server, as };
}

async function burst(count: number, send: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}

describe("failed authentications are limited per client address", () => {
  it("300 guesses from one address: 20 × 401, then 429 with Retry-After; other addresses' valid tokens keep working", async () => {
    const { instance, as } = await setup();
    const answers = await burst(300, () => as("127.0.0.2", GUESS));
    expect(answers.slice(0, 20).every((a) => a.status === 401)).toBe(true);
    expect(answers.slice(20).every((a) => a.status === 429)).toBe(true);
    expect(answers[20]!.retryAfter).toBe("3");
    expect(JSON.parse(answers[20]!.body)).toEqual({ error: "too many failed authentications from this address; retry in 3 s" });
    // Another address with a valid token, and with a wrong one, is not affected.
    expect((await as("127.0.0.3", instance.token)).status).toBe(200);
    expect((await as("127.0.0.3", GUESS)).status).toBe(401);
    // The guessing address is refused before any lookup, right token or not...
    expect((await as("127.0.0.2", instance.token)).status).toBe(429);
    // ...until the bucket has room again: one more guess every 3 s.
    instance.clock.advance(3000);
    expect((await as("127.0.0.2", instance.token)).status).toBe(200);
    expect((await as("127.0.0.2", GUESS)).status).toBe(401);
    expect((await as("127.0.0.2", GUESS)).status).toBe(429);
  });

  it("never counts successful requests, nor requests without credentials", async () => {
    const { instance, server, as } = await setup({ authFailuresPerMinute: 3 });
    for (let i = 0; i < 10; i++) expect((await as("127.0.0.4", instance.token)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await getFrom("127.0.0.4", server.url, "/api/v1/user/me", {})).status).toBe(401);
    const guesses = await burst(4, () => as("127.0.0.4", GUESS));
    expect(guesses.map((a) => a.status)).toEqual([401, 401, 401, 429]);
  });

  it("behind a trusted proxy, counts the forwarded client address; without one, X-Forwarded-For changes nothing", async () => {
    const proxied = await setup({ trustedProxies: ["127.0.0.5/32"] });
    const viaProxy = (client: string, token: string) => proxied.as("127.0.0.5", token, { "x-forwarded-for": `198.51.100.77, ${client}` });
    const guesses = await burst(25, () => viaProxy("203.0.113.7", GUESS));
    expect(guesses.filter((a) => a.status === 429)).toHaveLength(5);
    expect((await viaProxy("203.0.113.8", proxied.instance.token)).status).toBe(200);
    expect((await viaProxy("203.0.113.7", proxied.instance.token)).status).toBe(429);
    // IPv6 clients count per /64: another address in the same /64 is the same client.
    await burst(20, () => viaProxy("2001:db8:1:2::1", GUESS));
    expect((await viaProxy("2001:db8:1:2::ffff", proxied.instance.token)).status).toBe(429);
    expect((await viaProxy("2001:db8:1:3::1", proxied.instance.token)).status).toBe(200);

    const direct = await setup();
    let n = 0;
    const spoofed = await burst(25, () => direct.as("127.0.0.6", GUESS, { "x-forwarded-for": `203.0.113.${++n}` }));
    expect(spoofed.filter((a) => a.status === 429)).toHaveLength(5);
  });

  it("OUTREACH_AUTH_FAILURES_PER_MINUTE=0 turns the limit off", async () => {
    const { as } = await setup({ authFailuresPerMinute: 0 });
    const answers = await burst(40, () => as("127.0.0.7", GUESS));
    expect(answers.every((a) => a.status === 401)).toBe(true);
  });
});
