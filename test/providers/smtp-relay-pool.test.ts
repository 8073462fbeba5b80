import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterEach, describe, expect, test } from "vitest";
import { SmtpRelay } from "../../src/providers/smtp/relay.js";

/**
 * A real SMTP server on 127.0.0.1 that takes at most `maxSessions` sessions at once and
 * answers 421 to the greeting of any more (what a relay with a per-client session cap
 * does), counting sessions, the most at once, refusals and accepted messages.
 */
async function cappedRelay(maxSessions: number) {
  const stats = { active: 0, peak: 0, refused: 0, accepted: 0 };
  /** Set to answer the end of DATA with 421 (the relay closing the channel). */
  const control = { closingChannel: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      if (stats.active >= maxSessions) {
        stats.refused++;
        return callback(Object.assign(new Error("4.7.0 too many sessions from your address, try again later"), { responseCode: 421 }));
      }
      stats.active++;
      stats.peak = Math.max(stats.peak, stats.active);
      (_session as { counted?: boolean }).counted = true;
      callback();
    },
    onClose(session) {
      if ((session as { counted?: boolean }).counted) stats.active--;
    },
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        if (control.closingChannel) return callback(Object.assign(new Error("4.3.2 service shutting down, closing channel"), { responseCode: 421 }));
        stats.accepted++;
        callback(null, "Ok: queued");
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port, stats, control };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function relayTo(port: number, connections: number, now?: () => number): SmtpRelay {
  const relay = new SmtpRelay({ host: "127.0.0.1", port, secure: false, connections, ...(now ? { now } : {}) });
  closers.push(() => relay.close());
  return relay;
}

const message = (i: number) => Buffer.from(`From: a@acme-dental.test\r\nTo: b${i}@clinic.test\r\nSubject: ${i}\r\nMessage-ID: <m${i}@acme-dental.test>\r\n\r\nHello ${i}\r\n`);
const sendAll = (relay: SmtpRelay, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => relay.send({ from: "bounce@acme-dental.test", to: [`b${i}@clinic.test`] }, message(i), () => true)));

describe("the relay's connection pool, sized by the relay's answers", () => {
  test("starts with one connection and grows to the configured maximum while the relay accepts", async () => {
    const sink = await cappedRelay(100);
    const relay = relayTo(sink.port, 4);
    expect(relay.connectionLimit).toBe(1);
    const answers = await sendAll(relay, 40);
    expect(answers).toHaveLength(40);
    expect(sink.stats.accepted).toBe(40);
    expect(relay.connectionLimit).toBe(4);
    expect(sink.stats.peak).toBe(4);
    expect(sink.stats.refused).toBe(0);
  });

  test("shrinks when the relay refuses more sessions with 421, and the messages wait for the open ones instead of failing", async () => {
    const sink = await cappedRelay(2);
    const relay = relayTo(sink.port, 8);
    const answers = await sendAll(relay, 60);
    // Every message accepted: a refused extra session is not a failed message.
    expect(answers).toHaveLength(60);
    expect(sink.stats.accepted).toBe(60);
    expect(sink.stats.peak).toBe(2);
    expect(relay.connectionLimit).toBe(2);
    // Refused: at most the sessions asked for beyond two before the first refusal came
    // back (8 - 2); then the pool holds at two (for a minute) and asks no more.
    expect(sink.stats.refused).toBeGreaterThan(0);
    expect(sink.stats.refused).toBeLessThanOrEqual(6);
    const refusedBefore = sink.stats.refused;
    await sendAll(relay, 60);
    expect(sink.stats.accepted).toBe(120);
    expect(sink.stats.refused).toBe(refusedBefore);
  });

  test("a 421 at the end of DATA halves the limit and holds it for a minute; then the pool grows again", async () => {
    const sink = await cappedRelay(100);
    let now = Date.parse("2026-11-28T10:00:00Z");
    const relay = relayTo(sink.port, 4, () => now);
    await sendAll(relay, 20);
    expect(relay.connectionLimit).toBe(4);
    sink.control.closingChannel = true;
    await expect(relay.send({ from: "bounce@acme-dental.test", to: ["x@clinic.test"] }, message(99), () => true)).rejects.toMatchObject({ kind: "temporary", responseCode: 421 });
    expect(relay.connectionLimit).toBe(2);
    sink.control.closingChannel = false;
    await sendAll(relay, 10);
    expect(relay.connectionLimit).toBe(2);
    now += 61_000;
    await sendAll(relay, 10);
    expect(relay.connectionLimit).toBe(4);
  });
});
