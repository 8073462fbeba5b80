import { readFileSync } from "node:fs";
import { Option, type Command } from "commander";
import type { Campaign, ExecutionCounts, UpdateCampaignBody } from "../../../core/schemas/campaign.js";
import { WEEKDAYS, type Weekday } from "../../../core/send-window.js";
import { UsageError } from "../../exit-codes.js";

/**
 * The sequence flags of `campaigns create|edit` and the lines `show` prints about a
 * sequence (docs/cli.md, "Sequences"); the verbs `cancel` and `unconfirmed` have their files.
 */

type SequenceFields = Pick<UpdateCampaignBody, "followUps" | "sendWindow" | "stopScope" | "stopOnAutoReply">;

export interface SequenceFlags {
  followUp?: string[];
  sendWindow?: string;
  stopScope?: "contact" | "domain";
  stopOnAutoReply?: boolean;
}

/** Adds the sequence flags to `create` or `edit` (`edit` also takes `none` to clear). */
export function addSequenceOptions(command: Command, editing: boolean): Command {
  return command
    .option(
      "--follow-up <delay:file>",
      `a follow-up step, repeatable, in order: an ISO 8601 delay after the previous step (PT1M..P60D) and a Markdown file; a first line "Subject: …" gives it its own subject, else it replies in the thread${editing ? " ('none' removes every step)" : ""}`,
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--send-window <window>", `days and local hours steps may go out: "mon-fri 09:00-17:00" [zone or contact (default)]${editing ? " ('none' removes it)" : ""}`)
    .addOption(new Option("--stop-scope <scope>", "a reply stops the sequence of the contact, or of every contact at its domain").choices(["contact", "domain"]))
    .option("--stop-on-auto-reply", "an auto-reply (out of office) stops the sequence too")
    .option("--no-stop-on-auto-reply", "an auto-reply stops nothing (the default)");
}

/** `PT3D:followup.md` → a step; the file's first line `Subject: …` (then an optional blank line) is its subject. */
export function readFollowUp(value: string): NonNullable<SequenceFields["followUps"]>[number] {
  const colon = value.indexOf(":");
  if (colon <= 0 || colon === value.length - 1) throw new UsageError(`--follow-up ${value}: write DELAY:FILE, e.g. P3D:followup.md`);
  const delay = value.slice(0, colon).trim();
  const file = value.slice(colon + 1);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`--follow-up ${value}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const subject = /^subject:[ \t]*(.*?)[ \t]*\r?\n(?:[ \t]*\r?\n)?/i.exec(text);
  const bodyMarkdown = subject ? text.slice(subject[0].length) : text;
  if (bodyMarkdown.trim() === "") throw new UsageError(`--follow-up ${value}: ${file} has no body`);
  return { delay, ...(subject?.[1] ? { subject: subject[1] } : {}), bodyMarkdown };
}

function dayList(text: string): Weekday[] {
  const days = new Set<Weekday>();
  for (const part of text.toLowerCase().split(",")) {
    const [from, to] = part.split("-") as [string, string | undefined];
    const a = WEEKDAYS.indexOf(from as Weekday);
    const b = to === undefined ? a : WEEKDAYS.indexOf(to as Weekday);
    if (a < 0 || b < 0 || b < a) throw new UsageError(`--send-window: ${JSON.stringify(part)} is not a day or a range of days (${WEEKDAYS.join(", ")}; e.g. mon-fri or mon,wed,fri)`);
    for (let i = a; i <= b; i++) days.add(WEEKDAYS[i]!);
  }
  return [...days];
}

/** `mon-fri 09:00-17:00 [Europe/Berlin|contact]` → a send window (the server checks the hours and the zone). */
export function parseSendWindow(text: string): NonNullable<SequenceFields["sendWindow"]> {
  const match = /^\s*(\S+)\s+(\d{1,2}:\d{2})-(\d{1,2}:\d{2})(?:\s+(\S+))?\s*$/.exec(text);
  if (!match) throw new UsageError(`--send-window ${JSON.stringify(text)}: write DAYS START-END [ZONE], e.g. "mon-fri 09:00-17:00" or "mon-sat 08:30-12:00 Europe/Berlin"`);
  const pad = (t: string) => t.padStart(5, "0");
  return { days: dayList(match[1]!), start: pad(match[2]!), end: pad(match[3]!), timeZone: match[4] ?? "contact" };
}

/** The body fields the flags ask for (only those given). */
export function sequenceBody(flags: SequenceFlags, editing: boolean): SequenceFields {
  const body: SequenceFields = {};
  if (flags.followUp) {
    const clear = editing && flags.followUp.length === 1 && flags.followUp[0] === "none";
    body.followUps = clear ? [] : flags.followUp.map(readFollowUp);
  }
  if (flags.sendWindow !== undefined) body.sendWindow = editing && flags.sendWindow === "none" ? null : parseSendWindow(flags.sendWindow);
  if (flags.stopScope !== undefined) body.stopScope = flags.stopScope;
  if (flags.stopOnAutoReply !== undefined) body.stopOnAutoReply = flags.stopOnAutoReply;
  return body;
}

/** `show`'s lines: the steps, the window, and the funnel (queued, sent, replied with its rate, bounced, unsubscribed). */
export function sequenceLines(campaign: Campaign, counts: ExecutionCounts, unsubscribed: number): string[] {
  const lines = campaign.followUps.map((f, i) => `step ${i + 1}: after ${f.delay}, ${f.subject ? `subject "${f.subject}"` : "in the thread (Re: …)"}`);
  if (campaign.sendWindow) {
    const w = campaign.sendWindow;
    lines.push(`send window: ${w.days.join(",")} ${w.start}-${w.end} (${w.timeZone === "contact" ? "each contact's time zone" : w.timeZone})`);
  }
  const queued = counts.pending + counts.queued + counts.sending;
  const sent = counts.sent + counts.bounced;
  const rate = sent > 0 ? ` (${((counts.replied / sent) * 100).toFixed(1)}%)` : "";
  const parts = [`queued ${queued}`, `sent ${sent}`, `replied ${counts.replied}${rate}`, `bounced ${counts.bounced}`];
  parts.push(`unsubscribed ${unsubscribed}`);
  lines.push(`funnel: ${parts.join(", ")}`);
  return lines;
}
