import type { Clock } from "../../core/clock.js";
import type { ServiceDeps } from "../deps.js";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the bucket is full again (`X-RateLimit-Reset`). */
  resetAt: number;
  /** Whole seconds to wait before retrying (`Retry-After`); 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * GCRA (the generic cell rate algorithm, a token bucket kept as one timestamp per key):
 * `limit` requests per minute with bursts up to `limit`. In memory, because one server
 * process owns a data directory; keys are token ids.
 */
export class RateLimiter {
  private readonly tat = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly burstMs: number;
  private calls = 0;

  /** Requests per minute per key; 0 turns the limit off. */
  readonly limit: number;
  private readonly clock: Clock;

  constructor(deps: Pick<ServiceDeps, "clock"> & { limitPerMinute: number }) {
    const windowMs = 60_000;
    this.limit = deps.limitPerMinute;
    this.clock = deps.clock;
    this.intervalMs = this.limit > 0 ? windowMs / this.limit : 0;
    this.burstMs = windowMs;
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Whether `take(key)` would be allowed now, without taking anything. */
  peek(key: string): RateDecision {
    return this.decide(key, this.clock.now().getTime(), false);
  }

  take(key: string): RateDecision {
    const now = this.clock.now().getTime();
    if (++this.calls % 10_000 === 0) this.sweep(now);
    return this.decide(key, now, true);
  }

  private decide(key: string, now: number, record: boolean): RateDecision {
    const tat = Math.max(this.tat.get(key) ?? now, now);
    const next = tat + this.intervalMs;
    if (next - now > this.burstMs) {
      return {
        allowed: false,
        limit: this.limit,
        remaining: 0,
        resetAt: Math.ceil(tat / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil((next - now - this.burstMs) / 1000)),
      };
    }
    if (record) this.tat.set(key, next);
    return {
      allowed: true,
      limit: this.limit,
      remaining: Math.max(0, Math.floor((this.burstMs - (next - now)) / this.intervalMs)),
      resetAt: Math.ceil(next / 1000),
      retryAfterSeconds: 0,
    };
  }

  /** Forget keys whose buckets are full again, so memory stays bounded by active tokens. */
  private sweep(now: number): void {
    for (const [key, tat] of this.tat) if (tat <= now) this.tat.delete(key);
  }
}
