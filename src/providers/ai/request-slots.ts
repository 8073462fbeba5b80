/**
 * At most `size` model requests in flight for the whole process (OUTREACH_AI_CONCURRENCY),
 * whatever the operations asking: two opener runs at once share the slots rather than
 * doubling the load on the model. Waiting for a slot can be aborted.
 */
export class RequestSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  async acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", abort);
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      this.waiting.push(wake);
      signal.addEventListener("abort", abort, { once: true });
    });
  }

  /** Hands the slot to the next waiter, else frees it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
