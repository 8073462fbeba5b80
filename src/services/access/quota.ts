import { nextMidnightUtc, utcDay, type Clock } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { Quota } from "../../core/schemas/quota.js";
import { SearchQuotaRepo } from "../../store/search-quota.js";
import type { EffectiveLimits, PlanService } from "./plans.js";
import type { ServiceDeps } from "../deps.js";

/** A new search's unit of quota, to refund if the provider fails. */
export interface QuotaReservation {
  id: string;
  quota: Quota;
}

/**
 * The daily lead-search quota (docs/api.md, "Quota"): per workspace and UTC
 * day, limits from the plan; only new searches take a unit, atomically.
 */
export class QuotaService {
  private readonly repo: SearchQuotaRepo;
  private readonly clock: Clock;
  private readonly plans: PlanService;

  constructor(deps: Pick<ServiceDeps, "db" | "clock"> & { plans: PlanService }) {
    this.repo = new SearchQuotaRepo(deps.db);
    this.clock = deps.clock;
    this.plans = deps.plans;
  }

  private limitsOf(teamId: string) {
    return this.plans.limitsForTeam(teamId);
  }

  /** The workspace's quota now: unlimited plans have `limit` and `remaining` null. */
  current(teamId: string): Quota {
    const now = this.clock.now();
    const limits = this.limitsOf(teamId);
    return this.describe(limits.plan, limits.dailySearches, this.repo.used(teamId, utcDay(now)), now);
  }

  /**
   * Take one search from today's allowance, or 403 `quota_exceeded` (nothing taken).
   * `limits`: the team's, when the caller has just read them (the lead search has).
   */
  reserve(teamId: string, limits: EffectiveLimits = this.limitsOf(teamId)): QuotaReservation {
    const now = this.clock.now();
    const day = utcDay(now);
    const id = newId("srch");
    const used = this.repo.reserve(id, teamId, day, limits.dailySearches, now.toISOString());
    if (used === undefined) {
      const quota = this.describe(limits.plan, limits.dailySearches, this.repo.used(teamId, day), now);
      throw new AppError(
        "quota_exceeded",
        `daily search quota of the ${limits.plan} plan reached (${quota.used} of ${quota.limit} used); it resets at ${quota.resetAt}, and following pages of earlier searches stay free`,
        { body: { quota } },
      );
    }
    return { id, quota: this.describe(limits.plan, limits.dailySearches, used, now) };
  }

  /** Give a failed search's unit back; at most once per reservation. */
  refund(reservationId: string): boolean {
    return this.repo.refund(reservationId, this.clock.now().toISOString());
  }

  private describe(plan: string, limit: number | null, used: number, now: Date): Quota {
    return {
      plan,
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      resetAt: nextMidnightUtc(now).toISOString(),
    };
  }
}
