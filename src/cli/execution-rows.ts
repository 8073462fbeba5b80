import type { CampaignExecution } from "../core/schemas/campaign.js";
import type { CommandContext } from "./context.js";
import { printRows, timeCell } from "./output.js";

/** A table of executions (`campaigns executions`, `trigger`, `unconfirmed`). */
export function printExecutions(ctx: CommandContext, rows: readonly CampaignExecution[]): void {
  printRows(ctx.io, ctx.env, rows, [
    { header: "ID", value: (e) => e.id },
    { header: "CONTACT", value: (e) => e.contactId },
    { header: "STEP", value: (e) => e.step },
    { header: "STATUS", value: (e) => (e.unconfirmed ? `${e.status} (unconfirmed)` : e.status) },
    { header: "ATTEMPTS", value: (e) => e.attempts },
    { header: "WHEN", value: (e) => timeCell(ctx.io, ctx.clock.now(), e.sentAt ?? e.nextAttemptAt ?? e.updatedAt) },
    { header: "ERROR", value: (e) => e.error ?? "" },
  ]);
}
