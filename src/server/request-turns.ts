/** What a request does to the database, as far as taking turns goes. */
export type TurnKind = "read" | "write";

/** A pass hands out turns for this long, then lets the event loop take in new requests. */
export const PASS_MS = 4;

/**
 * Turns for the requests' database work, so that neither reads nor writes can starve the
 * other. Handlers run synchronously on the one event loop (SQLite calls block it), so
 * whoever runs first makes everyone else wait.
 *
 * Before, only writes took turns (one per pass of the loop) while reads ran the moment
 * they were parsed: at 50 reading connections every pass of the loop ran the ~50 reads
 * received meanwhile (tens of ms) before the next write, so four writers queued behind
 * one another waited several such passes each (contact adds: p99 72 ms alone, 2.7 s
 * under 50 readers). Now both wait in their own queue and a pass alternates them, a
 * write then a read: a write waits for at most one read per write ahead of it, a read
 * for at most one write per read ahead of it, and each queue keeps arrival order. A pass
 * ends after PASS_MS (then the loop polls sockets, so new arrivals queue up promptly) and
 * the next one starts from `setImmediate`.
 *
 * A turn covers the synchronous part of the work: the holder runs as soon as its
 * promise resolves (a microtask), and the next turn is handed out from a microtask queued
 * behind it, i.e. when the holder reaches its first `await`. Work that goes on after
 * awaiting (an import's later slices, a stream) takes its own breaks.
 */
export class RequestTurns {
  private readonly reads: Array<() => void> = [];
  private readonly writes: Array<() => void> = [];
  private scheduled = false;
  private lastWasWrite = false;

  constructor(
    private readonly passMs = PASS_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when this request may run its database work. Not async: the holder must run in the very next microtask. */
  next(kind: TurnKind): Promise<void> {
    return new Promise((resolve) => {
      (kind === "write" ? this.writes : this.reads).push(resolve);
      this.schedule();
    });
  }

  /** Requests waiting for a turn. */
  get waiting(): number {
    return this.reads.length + this.writes.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.pass(this.now()));
  }

  private pass(startedAt: number): void {
    const turn = this.take();
    if (!turn) {
      this.scheduled = false;
      return;
    }
    turn();
    // Queued behind the holder's continuation: runs once its synchronous part is done.
    queueMicrotask(() => {
      if (this.waiting === 0) this.scheduled = false;
      else if (this.now() - startedAt < this.passMs) this.pass(startedAt);
      else setImmediate(() => this.pass(this.now()));
    });
  }

  /** The next holder: reads and writes alternate while both wait. */
  private take(): (() => void) | undefined {
    const write = this.writes.length > 0 && (!this.lastWasWrite || this.reads.length === 0);
    this.lastWasWrite = write;
    return write ? this.writes.shift() : this.reads.shift();
  }
}
