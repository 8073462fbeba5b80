import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The helpers bench/fairness.js reads its latencies with (plain JS modules without types).
// @ts-expect-error plain JS module without types
import { trackAnswers } from "../../bench/fixtures/answer-latencies.js";
// @ts-expect-error plain JS module without types
import { watchCpuWait } from "../../bench/fixtures/cpu-wait.js";

const CONNECTIONS = 3;
/** A first answer is held this long: the summary must not count it among the kept connections' answers. */
const FIRST_ANSWER_DELAY_MS = 400;

// Answers each connection's first request with 201 after a delay, every later one with 200 at once.
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { answered?: boolean };
    if (socket.answered) return res.writeHead(200).end("later");
    socket.answered = true;
    setTimeout(() => res.writeHead(201).end("first"), FIRST_ANSWER_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("trackAnswers (bench/fixtures/answer-latencies.js)", () => {
  it("keeps each connection's first answer apart from the others", async () => {
    const run = autocannon({ url, duration: 1, connections: CONNECTIONS });
    const seen: number[] = [];
    const answers = trackAnswers(run, (_ms: number, _sentAt: number, status: number) => seen.push(status));
    const result = await run;
    const summary = answers.summary();

    expect(summary.firstAnswers.count).toBe(CONNECTIONS);
    // The first answers were held, so they are the slow ones; what is left never includes them.
    expect(summary.firstAnswers.max).toBeGreaterThanOrEqual(FIRST_ANSWER_DELAY_MS - 5);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((status) => status === 200)).toBe(true);
    expect(seen.length).toBe(result.requests.total - CONNECTIONS);
    expect(summary.p50).toBeLessThanOrEqual(summary.p99);
    expect(summary.p99).toBeLessThanOrEqual(summary.max);
    // autocannon's own figures count the held answers too.
    expect(result.latency.max).toBeGreaterThanOrEqual(FIRST_ANSWER_DELAY_MS - 5);
  });
});

describe("watchCpuWait (bench/fixtures/cpu-wait.js)", () => {
  it("gives the shares of the time this process's main thread ran and waited, or null without /proc", () => {
    const watch = watchCpuWait(process.pid);
    const until = performance.now() + 200;
    while (performance.now() < until) {
      // Busy: the thread is on a CPU or waiting for one the whole time.
    }
    const shares = watch.stop();
    if (process.platform !== "linux") return expect(shares).toBeNull();
    expect(shares.running).toBeGreaterThan(0);
    expect(shares.waiting).toBeGreaterThanOrEqual(0);
    expect(shares.running + shares.waiting).toBeLessThanOrEqual(1.1);
  });
});
