import type { Clock } from "../../core/clock.js";
import { delayMs } from "../../core/duration.js";
import { newId } from "../../core/ids.js";
import type { Db } from "../../store/db.js";
import { SequenceStepsRepo } from "../../store/sequence-steps.js";
import { sendWindowOf } from "./campaign-sequence.js";
import { sendWindowWait } from "./send-window-gate.js";

/**
 * Creating the later steps of sequences (docs/architecture.md, "Sequences"). Callers run
 * these inside their own immediate transaction: the delivery loop in the one recording
 * `sent`, so a crash can never leave a sent step without its successor, and the sweep
 * (recovery, resume, confirm) for whatever another path left out. The unique
 * (campaign, contact, step) makes every path create a step at most once.
 */
export class SequenceSteps {
  private readonly repo: SequenceStepsRepo;

  constructor(private readonly deps: { db: Db; clock: Clock }) {
    this.repo = new SequenceStepsRepo(deps.db);
  }

  /**
   * After `executionId` was recorded as sent: its next step, if the sequence goes on. A step
   * due outside the campaign's send window is due at the window's next opening from the
   * start, so `nextAttemptAt` tells the truth (the delivery loop checks again when it is due).
   */
  afterSent(executionId: string, now: string): string | undefined {
    const next = this.repo.createNext(executionId, () => newId("exe"), delayMs, now);
    if (!next) return undefined;
    const context = this.repo.windowContext(next);
    const wait = sendWindowWait(sendWindowOf(context), context.contact_zone, context.brand_zone ?? "UTC", new Date(next.due));
    if (wait) this.repo.deferTo(next.id, wait.at, wait.reason, now);
    return next.id;
  }

  /** Every next step that should exist and does not (of one campaign, or all). Returns how many were created. */
  sweep(now: string, campaignId?: string): number {
    let created = 0;
    for (const id of this.repo.missingNext(campaignId)) if (this.afterSent(id, now)) created++;
    return created;
  }

  /**
   * A paused lifetime campaign active again: the follow-ups the pause cancelled are
   * pending again (due when they were due, so an overdue one goes out at once, within
   * the send window), and the steps not created while it was paused are created.
   */
  resume(campaignId: string, now: string): void {
    this.repo.resumeCancelledSteps(campaignId, now);
    this.sweep(now, campaignId);
  }

  /** The Message-IDs of a contact's earlier steps in a campaign, in order. */
  thread(campaignId: string, contactId: string, beforeStep: number): string[] {
    return this.repo.thread(campaignId, contactId, beforeStep);
  }
}
