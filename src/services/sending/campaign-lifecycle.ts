import type { LifetimeStatus } from "../../core/schemas/campaign.js";

/**
 * The lifecycle of lifetime campaigns (docs/api.md, "Campaigns"), as data: from each status, the statuses a PATCH lifecycle may move
 * a lifetime campaign to. Archived is final. Nothing moves back to draft.
 */
export const LIFECYCLE_MOVES: Readonly<Record<LifetimeStatus, readonly LifetimeStatus[]>> = {
  draft: ["active"],
  active: ["paused", "archived"],
  paused: ["active", "archived"],
  archived: [],
};

/** Moves into these statuses cancel the campaign's pending and queued executions. */
export const CANCELS_OPEN_EXECUTIONS: ReadonlySet<LifetimeStatus> = new Set(["paused", "archived"]);

export function allowedTargets(from: LifetimeStatus): readonly LifetimeStatus[] {
  return LIFECYCLE_MOVES[from];
}

/** The statuses from which `to` may be reached: the guard of the conditional UPDATE. */
export function allowedSources(to: LifetimeStatus): LifetimeStatus[] {
  return (Object.keys(LIFECYCLE_MOVES) as LifetimeStatus[]).filter((from) => LIFECYCLE_MOVES[from].includes(to));
}

/** The 409 sentence: the current status and where it may go from there. */
export function illegalMoveMessage(campaignId: string, from: LifetimeStatus, to: LifetimeStatus): string {
  const targets = allowedTargets(from);
  const where = targets.length ? `it can move to ${targets.join(" or ")}` : "archived campaigns cannot change status";
  return `campaign ${campaignId} is ${from} and cannot move to ${to}: ${where}`;
}
