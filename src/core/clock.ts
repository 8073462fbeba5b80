/** Time is injected so tests can move it (token expiry, midnight quota reset) without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string | number = "2026-11-22T10:00:00.000Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
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
