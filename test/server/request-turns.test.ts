import { describe, expect, it } from "vitest";
import { RequestTurns, type TurnKind } from "../../src/server/request-turns.js";

/**
 * The scheduler on its own: requests queue for turns, the test records the order in which
 * the holders ran. A holder's "work" advances an injected clock, so the pass's time budget
 * is exercised without timing anything.
 */
function harness(passMs = 4) {
  let clock = 0;
  const turns = new RequestTurns(passMs, () => clock);
  const ran: string[] = [];
  const request = (kind: TurnKind, label: string, costMs = 1) =>
    turns.next(kind).then(() => {
      ran.push(label);
      clock += costMs;
    });
  return { turns, ran, request, advance: (ms: number) => (clock += ms) };
}

describe("RequestTurns", () => {
  it("alternates writes and reads while both wait, each queue in arrival order", async () => {
    const { ran, request } = harness(1000);
    const all = [
      ...["r1", "r2", "r3", "r4", "r5"].map((l) => request("read", l)),
      ...["w1", "w2"].map((l) => request("write", l)),
    ];
    await Promise.all(all);
    expect(ran).toEqual(["w1", "r1", "w2", "r2", "r3", "r4", "r5"]);
  });

  it("while both wait, reads get as much time as the writes had: a 3 ms write, then 3 ms of 1 ms reads", async () => {
    const { ran, request } = harness(1000);
    const all = [
      ...["w1", "w2"].map((l) => request("write", l, 3)),
      ...["r1", "r2", "r3", "r4", "r5", "r6"].map((l) => request("read", l, 1)),
    ];
    await Promise.all(all);
    expect(ran).toEqual(["w1", "r1", "r2", "r3", "w2", "r4", "r5", "r6"]);
  });

  it("forgets the reads' credit once no write waits: a write arriving later goes next", async () => {
    const { ran, request } = harness(1000);
    await Promise.all([request("write", "w1", 10), request("read", "r1", 1)]);
    // The reads were owed 9 ms; nobody was waiting meanwhile, so nothing is carried over.
    await Promise.all([request("read", "r2"), request("read", "r3"), request("write", "w2")]);
    expect(ran).toEqual(["w1", "r1", "w2", "r2", "r3"]);
  });

  it("a read waits for at most one write per read ahead of it, however many writes are queued", async () => {
    const { ran, request } = harness(1000);
    const all = [...Array.from({ length: 8 }, (_, i) => request("write", `w${i}`)), request("read", "list")];
    await Promise.all(all);
    expect(ran.indexOf("list")).toBe(1);
    expect(ran.filter((l) => l !== "list")).toEqual(Array.from({ length: 8 }, (_, i) => `w${i}`));
  });

  it("a holder's synchronous work finishes before the next turn is handed out", async () => {
    const { turns, request } = harness(1000);
    const events: string[] = [];
    const first = turns.next("write").then(() => {
      events.push("w start");
      // Synchronous work of any length: nothing else may start meanwhile.
      for (let i = 0; i < 1000; i++) if (i === 999) events.push("w end");
    });
    const second = request("read", "r").then(() => events.push("r"));
    await Promise.all([first, second]);
    expect(events).toEqual(["w start", "w end", "r"]);
  });

  it("a pass ends once its time is used up and lets the event loop run before the next", async () => {
    const { ran, request } = harness(4);
    const all = Array.from({ length: 10 }, (_, i) => request("read", `r${i}`, 3));
    // Queued after the first pass was scheduled: it runs between two passes, not after all ten reads.
    const between = new Promise<void>((resolve) => setImmediate(() => (ran.push("event loop"), resolve())));
    await Promise.all([...all, between]);
    const at = ran.indexOf("event loop");
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(4);
    expect(ran.filter((l) => l !== "event loop")).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`));
  });

  it("starts again after going idle", async () => {
    const { turns, request, ran } = harness();
    await request("read", "a");
    expect(turns.waiting).toBe(0);
    await Promise.all([request("write", "b"), request("read", "c")]);
    expect(ran).toEqual(["a", "b", "c"]);
  });
});
