import type { Campaign, CreateCampaignBody, UpdateCampaignBody } from "../../core/schemas/campaign.js";
import type { FollowUp, FollowUpInput, SendWindowInput } from "../../core/schemas/sequence.js";
import type { SendWindow } from "../../core/send-window.js";
import type { CampaignChanges, CampaignRow } from "../../store/campaigns.js";
import type { MessageTemplates } from "./message-template.js";

/**
 * A campaign's sequence fields (docs/api.md, "Sequences"): how they are stored, shown and
 * checked. Step 0 is the campaign's own subject and body; `followUps[i]` is step i + 1.
 */

export type SequenceFields = Pick<Campaign, "followUps" | "stopScope" | "stopOnAutoReply" | "sendWindow">;

export function followUpsOf(row: Pick<CampaignRow, "follow_ups">): FollowUp[] {
  return JSON.parse(row.follow_ups) as FollowUp[];
}

export function sendWindowOf(row: Pick<CampaignRow, "send_window">): SendWindow | null {
  return row.send_window ? (JSON.parse(row.send_window) as SendWindow) : null;
}

export function sequenceFieldsOf(row: CampaignRow): SequenceFields {
  return {
    followUps: followUpsOf(row),
    stopScope: row.stop_scope,
    stopOnAutoReply: row.stop_on_auto_reply === 1,
    sendWindow: sendWindowOf(row) as SequenceFields["sendWindow"],
  };
}

function storedFollowUps(steps: readonly FollowUpInput[]): string {
  return JSON.stringify(steps.map((s): FollowUp => ({ delay: s.delay, subject: s.subject ?? null, bodyMarkdown: s.bodyMarkdown })));
}

function storedWindow(window: SendWindowInput | null): string | null {
  return window ? JSON.stringify({ days: window.days, start: window.start, end: window.end, timeZone: window.timeZone }) : null;
}

/** The stored columns of a new campaign's sequence fields (defaults: no follow-up, contact scope, no window). */
export function sequenceColumnsOfCreate(body: CreateCampaignBody): Pick<CampaignRow, "follow_ups" | "send_window" | "stop_scope" | "stop_on_auto_reply"> {
  return {
    follow_ups: storedFollowUps(body.followUps ?? []),
    send_window: storedWindow(body.sendWindow ?? null),
    stop_scope: body.stopScope ?? "contact",
    stop_on_auto_reply: body.stopOnAutoReply ? 1 : 0,
  };
}

/** The columns a PATCH changes, only those it names. */
export function sequenceChangesOf(body: UpdateCampaignBody): CampaignChanges {
  const changes: CampaignChanges = {};
  if (body.followUps !== undefined) changes.follow_ups = storedFollowUps(body.followUps);
  if (body.sendWindow !== undefined) changes.send_window = storedWindow(body.sendWindow);
  if (body.stopScope !== undefined) changes.stop_scope = body.stopScope;
  if (body.stopOnAutoReply !== undefined) changes.stop_on_auto_reply = body.stopOnAutoReply ? 1 : 0;
  return changes;
}

/** Each step's templates checked as step 0's are: a 400 naming the step and the field (`followUps[1].bodyMarkdown`). */
export async function validateFollowUps(templates: MessageTemplates, brand: Record<string, unknown>, steps: readonly FollowUpInput[] | undefined): Promise<void> {
  for (const [i, step] of (steps ?? []).entries()) {
    if (step.subject) await templates.validate("subject", step.subject, brand, `followUps[${i}].subject`);
    await templates.validate("bodyMarkdown", step.bodyMarkdown, brand, `followUps[${i}].bodyMarkdown`);
  }
}
