/**
 * Fair turns for requests that write. Handlers run synchronously on the one event loop
 * (SQLite calls block it), so a read that arrives behind four queued contact adds waits
 * for all four. Here a writing request waits for its turn, and turns are handed out one
 * per pass of the event loop (from `setImmediate`, after the loop has taken in every
 * request that arrived): between two writes, every read already received runs. Writes
 * still run in arrival order and at full speed when nothing else is waiting.
 */
export class WriteTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves when this request may run its write. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      // Scheduled from within this pass: the next turn comes after the next poll for I/O.
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
