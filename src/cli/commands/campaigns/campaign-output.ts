import { readFileSync } from "node:fs";
import { ExecutionStatus, type Campaign, type ExecutionCounts } from "../../../core/schemas/campaign.js";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { readAll } from "../../io.js";
import { printRecord } from "../../output.js";

/** What the `campaigns` verbs share: a campaign as a record, its execution counts, and `--body-file`. */

export function printCampaign(ctx: CommandContext, c: Campaign): void {
  printRecord(ctx.io, [
    ["id", c.id],
    ["name", c.name],
    ["type", c.type],
    ["status", c.status],
    ["subject", c.subject],
    ["sendingDomainId", c.sendingDomainId],
    ["scheduledAt", c.scheduledAt],
    ["launchedAt", c.launchedAt],
    ["sentAt", c.sentAt],
    ["createdAt", c.createdAt],
    ["updatedAt", c.updatedAt],
  ]);
}

/** `show`'s line of execution counts: the statuses that have any, in the schema's order. */
export function countsLine(counts: ExecutionCounts): string {
  const parts = ExecutionStatus.options.filter((s) => counts[s] > 0).map((s) => `${s} ${counts[s]}`);
  return parts.length ? parts.join(", ") : "none";
}

/** `--body-file <file>` (Markdown, a Liquid template; `-` for stdin). */
export async function readBody(ctx: CommandContext, file: string): Promise<string> {
  try {
    return file === "-" ? await readAll(ctx.io.stdin) : readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`--body-file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

/** The line under a list when there are more pages. */
export function morePagesLine(ctx: CommandContext, result: { page: number; totalPages: number; total: number }, what: string): void {
  if (result.totalPages > 1) ctx.info(`page ${result.page} of ${result.totalPages} (${result.total} ${what}); next: --page ${result.page + 1}`);
}
