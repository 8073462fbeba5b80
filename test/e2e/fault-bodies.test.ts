import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/server/body.js";
import { allRoutes } from "../../src/server/routes/index.js";
import { cliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { chunked, rawExchange } from "../helpers/raw-http.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";

/**
 * Every endpoint that reads a body, with made-up ids: the body is read before any id is
 * looked up. The one with a query (sending domains, `?teamId=`) gets a well-formed one,
 * since the query is checked before the body.
 */
const BODY_ENDPOINTS = allRoutes
  .filter((r) => r.body)
  .map((r) => ({ method: r.method, path: r.path.replace(/:\w+/g, "x_unknown0000") + (r.query ? "?teamId=team_unknown0000" : ""), auth: r.auth }));

/** What a body kind must get from an endpoint that reads it; `"4xx"`: any client error; `"any"`: a 4xx or no answer. */
type Expected = number | "4xx" | "any";

interface BodyKind {
  name: string;
  expected: Expected;
  /** The request's bytes after the request line; `head` holds the auth header and `Connection: close`. */
  bytes(head: string): Array<string | Buffer>;
  after?: "end" | "destroy" | "wait";
}

const over = Buffer.alloc(MAX_BODY_BYTES + 1, "a");
const json = (text: string | Buffer, type = "application/json"): BodyKind["bytes"] => (head) => {
  const body = Buffer.isBuffer(text) ? text : Buffer.from(text);
  return [`${head}Content-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`, body];
};

const KINDS: BodyKind[] = [
  { name: "chunked, 1 MiB + 1 byte", expected: 413, bytes: (head) => [`${head}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, chunked(over)] },
  { name: "chunked, 1 MiB + 1 byte in 1 KiB chunks", expected: 413, bytes: (head) => [`${head}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, chunked(over, 1024)] },
  { name: "Content-Length 1 MiB + 1, all sent", expected: 413, bytes: json(over) },
  { name: "Content-Length of 2 MiB declared, 10 bytes sent", expected: 413, after: "end", bytes: (head) => [`${head}Content-Type: application/json\r\nContent-Length: ${2 * MAX_BODY_BYTES}\r\n\r\n{"a":1234}`] },
  { name: "Content-Length 6 declared, 1 MiB + 1 sent", expected: 400, bytes: (head) => [`${head}Content-Type: application/json\r\nContent-Length: 6\r\n\r\n{"a":[`, over] },
  { name: "Content-Length 100 declared, 20 sent, then half-closed", expected: "any", after: "end", bytes: (head) => [`${head}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"abcdefghij`] },
  { name: "Content-Length 100 declared, 20 sent, then dropped", expected: "any", after: "destroy", bytes: (head) => [`${head}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"abcdefghij`] },
  { name: "chunked, never finished, then half-closed", expected: "any", after: "end", bytes: (head) => [`${head}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n`] },
  { name: "Content-Length and chunked together", expected: 400, bytes: (head) => [`${head}Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`] },
  { name: "bad chunk size", expected: 400, bytes: (head) => [`${head}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`] },
  { name: "two Content-Lengths that disagree", expected: 400, bytes: (head) => [`${head}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{} `] },
  { name: "malformed JSON", expected: 400, bytes: json("{nope") },
  { name: "truncated JSON", expected: 400, bytes: json('{"name": "Ada", "email": ') },
  { name: "duplicate keys", expected: 400, bytes: json('{"name":"a","name":"b"}') },
  { name: "nested 5,000 levels deep", expected: 400, bytes: json('{"brandDesignSystem":' + '{"a":'.repeat(5000) + "1" + "}".repeat(5001)) },
  { name: "arrays nested 100,000 levels deep", expected: 400, bytes: json("[".repeat(100_000) + "]".repeat(100_000)) },
  { name: "invalid UTF-8", expected: 400, bytes: json(Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])) },
  { name: "gzip bytes sent as JSON", expected: 400, bytes: json(Buffer.from("1f8b0800000000000003abae050043bfa6a302000000", "hex")) },
  { name: "form body", expected: 415, bytes: json("name=a&email=b", "application/x-www-form-urlencoded") },
  { name: "JSON without a content type", expected: 415, bytes: (head) => [`${head}Content-Length: 2\r\n\r\n{}`] },
  { name: "top-level array", expected: 400, bytes: json("[]") },
  { name: "top-level null", expected: 400, bytes: json("null") },
  { name: "a 900 KB string", expected: "4xx", bytes: json(JSON.stringify({ name: "x".repeat(900_000) })) },
  { name: "__proto__ and constructor keys", expected: 400, bytes: json('{"__proto__":{"admin":true},"constructor":{"prototype":{}}}') },
  { name: "numbers out of range", expected: "4xx", bytes: json('{"radiusKm":1e400,"page":-1e400,"limit":123456789012345678901234567890}') },
  { name: "lone surrogates and NUL", expected: "4xx", bytes: json('{"name":"\\ud800\\u0000","email":"\\udfff@x.y"}') },
];

function matches(expected: Expected, status: number | null): boolean {
  if (expected === "any") return status === null || (status >= 400 && status < 500);
  if (expected === "4xx") return status !== null && status >= 400 && status < 500;
  return status === expected;
}

describe("no request body, of any size, shape or encoding, ends the server", () => {
  // Four process start-ups and every body kind × endpoint × credential: its work grows with
  // each endpoint that takes a body, and outran 30 s on a loaded 2-core machine.
  it("sends every oversized and malformed body kind to every body endpoint, with a member's token and a trigger-only key, and /healthz still answers", { timeout: 180_000 }, async () => {
    // 12, then the campaign PATCH and launch of sending, personal access token creation, the
    // resolve of an unconfirmed execution (sequences), contacts verify, and AI drafts, openers
    // generation and an opener's edit.
    expect(BODY_ENDPOINTS).toHaveLength(20);
    const env = cliEnv();
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const owner = JSON.parse(init.stdout).token as string;
    const bob = await runBin(["admin", "users", "create", "--data-dir", dataDir, "--email", "bob@example.com", "--name", "Bob", "--json"], env);
    const member = JSON.parse(bob.stdout).token as string;
    expect((await runBin(["admin", "members", "add", "--data-dir", dataDir, "--team", "acme", "--email", "bob@example.com", "--role", "member"], env)).code).toBe(0);

    const serve = await spawnServe(dataDir, env);
    const created = await fetch(`${serve.url}/api/v1/settings/team-api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Zapier", scopes: ["campaigns:trigger"] }),
    });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { key: string }).key;

    const wrong: string[] = [];
    for (const [who, token] of [
      ["member", member],
      ["trigger-only key", key],
    ] as const) {
      for (const endpoint of BODY_ENDPOINTS) {
        // A key on a personal-token endpoint (and the reverse) is refused before the body is read.
        const refusedFirst = (endpoint.auth === "team-key") !== (who === "trigger-only key");
        const head = `${endpoint.method} ${endpoint.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n`;
        const answers = await Promise.all(
          KINDS.map(async (kind) => ({ kind, answer: await rawExchange(serve.port, kind.bytes(head), { after: kind.after, timeoutMs: 5000 }) })),
        );
        for (const { kind, answer } of answers) {
          const expected: Expected = refusedFirst && kind.expected !== "any" ? "any" : kind.expected;
          if (!matches(expected, answer.status)) wrong.push(`${who} ${endpoint.method} ${endpoint.path} ${kind.name}: ${answer.status} (expected ${expected})`);
        }
        expect(serve.alive(), `${who} ${endpoint.method} ${endpoint.path} ${serve.stderr()}`).toBe(true);
      }
    }
    expect(wrong).toEqual([]);
    const health = await fetch(`${serve.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect(serve.alive()).toBe(true);
    expect(serve.stderr()).not.toMatch(/internal error|TypeError|RangeError/);
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
  });
});
