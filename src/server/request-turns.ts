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
 * under 50 readers). Now both wait in their own queue, each in arrival order, and while
 * both wait they share the time: after a write that held the loop for T ms, reads run
 * until they have had T ms, then the next write (a deficit kept in ms, forgotten when
 * either queue runs dry). So a write waits behind about as much reading as there is
 * writing ahead of it, and a read behind about as much writing as there is reading ahead
 * of it: a 500-contact import's slices and the reads alternate half and half, a contact
 * add goes in after ~one add's worth of reads. A pass ends after PASS_MS (then the loop
 * polls its sockets, so new arrivals queue up promptly) and the next one starts from
 * `setImmediate`.
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
  /** Ms the writes have held the loop more than the reads, while both were waiting. */
  private writesAhead = 0;

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

  private pass(passStartedAt: number): void {
    if (this.reads.length === 0 || this.writes.length === 0) this.writesAhead = 0;
    const write = this.writes.length > 0 && (this.reads.length === 0 || this.writesAhead <= 0);
    const turn = write ? this.writes.shift() : this.reads.shift();
    if (!turn) {
      this.scheduled = false;
      return;
    }
    const startedAt = this.now();
    turn();
    // Queued behind the holder's continuation: runs once its synchronous part is done.
    queueMicrotask(() => {
      const now = this.now();
      this.writesAhead += write ? now - startedAt : startedAt - now;
      if (this.waiting === 0) this.scheduled = false;
      else if (now - passStartedAt < this.passMs) this.pass(passStartedAt);
      else setImmediate(() => this.pass(this.now()));
    });
  }
}
