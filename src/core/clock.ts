/** Time is injected so tests can move it (token expiry, midnight quota reset, waits) without sleeping. */
export interface Clock {
  now(): Date;
  /** Resolve after `ms` of this clock's time; reject with an AbortError when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error("aborted"), { name: "AbortError" });
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortError(signal!));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** A clock tests can set and advance; its `sleep` advances it at once instead of waiting. */
export class ManualClock implements Clock {
  private current: number;
  private readonly sleepListeners: Array<(ms: number) => void> = [];

  constructor(start: Date | string | number = "2026-11-22T10:00:00.000Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock by `ms`, tells the `onSleep` listeners (what happens in the world meanwhile), then lets other work run. */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortError(signal);
    this.advance(ms);
    for (const listener of this.sleepListeners) listener(ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  onSleep(listener: (ms: number) => void): void {
    this.sleepListeners.push(listener);
  }

  set(to: Date | string | number): void {
    this.current = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** Midnight UTC after `date`: when daily quotas reset. */
export function nextMidnightUtc(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
}

/** `YYYY-MM-DD` of `date` in UTC: the key of a daily counter. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
