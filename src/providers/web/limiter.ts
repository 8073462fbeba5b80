/** A counting semaphore: at most `limit` holders at once, FIFO waiters, abortable waits. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(wake);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(wake);
    });
    // The releasing holder handed its slot over (active was not decremented).
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    };
  }
}

/** One semaphore per key (host), dropped when idle so the map does not grow without bound. */
export class KeyedSemaphore {
  private readonly byKey = new Map<string, Semaphore>();

  constructor(private readonly limit: number) {}

  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    let semaphore = this.byKey.get(key);
    if (!semaphore) this.byKey.set(key, (semaphore = new Semaphore(this.limit)));
    const release = await semaphore.acquire(signal);
    return () => {
      release();
      if (semaphore.idle) this.byKey.delete(key);
    };
  }
}
