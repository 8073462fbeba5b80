import { badRequest, unauthorized } from "../../core/errors.js";
import { PlansRepo } from "../../store/plans.js";
import { TeamsRepo, type TeamRow } from "../../store/teams.js";
import type { ServiceDeps } from "../deps.js";

/** A workspace's limits after its plan's defaults and the operator's per-team overrides. */
export interface EffectiveLimits {
  plan: string;
  /** Daily lead searches; null: unlimited. */
  dailySearches: number | null;
  /** Contacts in the workspace; null: unlimited. */
  maxContacts: number | null;
  customSender: boolean;
  /** Messages handed to the relay per UTC day; null: unlimited. */
  dailySends: number | null;
}

/** Overrides are stored as NULL (use the plan), -1 (unlimited) or a number. */
function applyOverride(planValue: number | null, override: number | null): number | null {
  if (override === null) return planValue;
  return override < 0 ? null : override;
}

/**
 * Plans and the limits they give a workspace: the one place other services ask
 * (`limitsForTeam`) for daily searches, the contact limit and custom sender.
 */
export class PlanService {
  private readonly plans: PlansRepo;
  private readonly teams: TeamsRepo;

  constructor(deps: Pick<ServiceDeps, "db">) {
    this.plans = new PlansRepo(deps.db);
    this.teams = new TeamsRepo(deps.db);
  }

  all(): Array<Omit<EffectiveLimits, "plan"> & { name: string }> {
    return this.plans.all().map((p) => ({
      name: p.name,
      dailySearches: p.daily_searches,
      maxContacts: p.max_contacts,
      customSender: p.custom_sender === 1,
      dailySends: p.daily_sends,
    }));
  }

  /** Create a plan or change its defaults; a limit of null means unlimited. */
  set(
    name: string,
    change: { dailySearches?: number | null; maxContacts?: number | null; customSender?: boolean; dailySends?: number | null },
  ): Omit<EffectiveLimits, "plan"> & { name: string } {
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(name)) throw badRequest("plan names are lower-case letters, digits and dashes (at most 40)");
    const current = this.plans.byName(name);
    this.plans.upsert({
      name,
      daily_searches: change.dailySearches !== undefined ? change.dailySearches : (current?.daily_searches ?? null),
      max_contacts: change.maxContacts !== undefined ? change.maxContacts : (current?.max_contacts ?? null),
      custom_sender: change.customSender !== undefined ? (change.customSender ? 1 : 0) : (current?.custom_sender ?? 0),
      daily_sends: change.dailySends !== undefined ? change.dailySends : (current?.daily_sends ?? null),
    });
    return this.all().find((p) => p.name === name)!;
  }

  names(): string[] {
    return this.plans.all().map((p) => p.name);
  }

  assertKnown(name: string): void {
    if (!this.plans.byName(name)) throw badRequest(`plan ${JSON.stringify(name)} is not known (known plans: ${this.names().join(", ")})`);
  }

  /** The limits of a workspace; 401 "no active workspace" when it is gone (the caller's workspace was deleted). */
  limitsForTeam(teamId: string): EffectiveLimits {
    const team = this.teams.byId(teamId);
    if (!team) throw unauthorized("no active workspace");
    return this.limitsFor(team);
  }

  private limitsFor(team: TeamRow): EffectiveLimits {
    const plan = this.plans.byName(team.plan);
    if (!plan) throw new Error(`team ${team.id} has unknown plan ${team.plan}`);
    return {
      plan: plan.name,
      dailySearches: applyOverride(plan.daily_searches, team.daily_searches_override),
      maxContacts: applyOverride(plan.max_contacts, team.max_contacts_override),
      customSender: plan.custom_sender === 1,
      dailySends: plan.daily_sends,
    };
  }
}
