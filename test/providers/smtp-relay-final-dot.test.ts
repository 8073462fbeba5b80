import { afterEach, describe, expect, test } from "vitest";
import { RelayError, SmtpRelay } from "../../src/providers/smtp/relay.js";
import { startSmtpSink } from "../helpers/smtp-sink.js";

const relays: SmtpRelay[] = [];
// Before the sink closes (hooks run last-registered first).
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

const raw = (id: string) => Buffer.from(`From: a@acme-dental.test\r\nTo: b@clinic.test\r\nMessage-ID: <${id}@acme-dental.test>\r\nSubject: hi\r\n\r\nHello.\r\n`);
const envelope = { from: "bounce@acme-dental.test", to: ["b@clinic.test"] };

/** A promise and the function that settles it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The point of no return of a message (docs/architecture.md, "The recovery rule"): the
 * final `.` of DATA leaves only once `beforeFinalDot` has answered yes, also when it
 * answers with a promise (the delivery's `sending` mark, committed with its turn's writes).
 */
describe("the relay's final dot waits for beforeFinalDot's promise", () => {
  test("a promised yes: the relay has nothing until it settles, then the message; a promised no: the relay discards it", async () => {
    const sink = await startSmtpSink();
    const relay = new SmtpRelay({ host: "127.0.0.1", port: sink.port, secure: false, connections: 1 });
    relays.push(relay);

    const yes = deferred<boolean>();
    let asked = deferred<void>();
    const sent = relay.send(envelope, raw("yes"), () => {
      asked.resolve();
      return yes.promise;
    });
    await asked.promise;
    // The bytes are out and the relay waits for the end of DATA: a few turns give it the chance to finish early.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(sink.received).toHaveLength(0);
    yes.resolve(true);
    expect((await sent).response).toMatch(/^250/);
    expect(sink.received).toHaveLength(1);

    const no = deferred<boolean>();
    asked = deferred<void>();
    const refused = relay.send(envelope, raw("no"), () => {
      asked.resolve();
      return no.promise;
    });
    await asked.promise;
    no.resolve(false);
    const error = await refused.catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RelayError);
    expect(error).toMatchObject({ kind: "cancelled", finalDotSent: false });
    // A rejected promise (the mark could not be written) is no `.` either.
    const failed = await relay.send(envelope, raw("fails"), () => Promise.reject(new Error("database is locked"))).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(RelayError);
    expect(failed).toMatchObject({ finalDotSent: false });
    expect(sink.received).toHaveLength(1);
  });
});
