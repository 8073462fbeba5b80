import type { ApiClient } from "../client/api-client.js";
import { ContactInput, type ContactImportOutcome } from "../core/schemas/contact.js";
import { describeZodError } from "../core/validation.js";
import type { ImportRecord } from "./contact-import.js";
import type { CommandContext } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { rateProgress } from "./rate-progress.js";

export interface ImportReport {
  created: number;
  duplicates: number;
  invalid: number;
  limitReached: number;
  skipped: number;
  rows: Array<{ where: string; status: ContactImportOutcome["status"] | "skipped"; id?: string; error?: string }>;
  /** Set when Ctrl-C stopped the import: how many of the file's rows were dealt with. */
  interrupted?: { rowsDone: number; rowsTotal: number };
}

/**
 * Chunks are sized to take about this long, so that Ctrl-C, which is heard between chunks,
 * stops the import well within a second, whatever the machine's speed or the server's.
 */
const CHUNK_TARGET_MS = 250;
/** The first chunk, before the rate is known: small enough to answer quickly anywhere. */
const FIRST_CHUNK = 25;
/** A chunk grows at most this many times from one to the next (one fast answer proves little). */
const MAX_GROWTH = 4;

/** The next chunk's size from how long the last one took, between 1 and `max` (`--batch-size`). */
export function nextChunkSize(lastSize: number, lastMs: number, max: number): number {
  const fitting = lastMs > 0 ? Math.floor((lastSize * CHUNK_TARGET_MS) / lastMs) : max;
  return Math.max(1, Math.min(max, lastSize * MAX_GROWTH, fitting));
}

/** The one way this file hears Ctrl-C (the run's signal, aborted by SIGINT in main.ts); a shared helper can replace it. */
const interruptRequested = (ctx: CommandContext) => ctx.io.signal?.aborted === true;

const plural = (n: number, word: string) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;

function tallyLine(report: ImportReport): string {
  return (
    `imported ${plural(report.created, "contact")}; ${report.duplicates.toLocaleString("en")} duplicate, ${report.invalid.toLocaleString("en")} invalid, ${report.skipped.toLocaleString("en")} skipped (no email)` +
    (report.limitReached ? `, ${report.limitReached.toLocaleString("en")} over the plan's limit` : "")
  );
}

/**
 * Validate locally what can be (unreadable lines, leads without email), send the rest in
 * chunks to the bulk endpoint, and report every row by where it is in the file.
 *
 * Ctrl-C: a chunk once sent is always waited for (it is sent without the run's signal), so
 * the report says exactly which rows were written; the import then stops before the next
 * chunk and the summary says how far it got. A second Ctrl-C ends the process at once
 * (main.ts listens once); the server's transactions still leave only whole contacts.
 */
export async function runImport(
  ctx: CommandContext,
  client: ApiClient,
  records: ImportRecord[],
  options: { tags: string[]; strict: boolean; batchSize: number },
): Promise<ImportReport> {
  const report: ImportReport = { created: 0, duplicates: 0, invalid: 0, limitReached: 0, skipped: 0, rows: [] };
  const sendable: Array<{ where: string; contact: Record<string, unknown> }> = [];
  for (const r of records) {
    if (r.skipped) {
      report.skipped++;
      report.rows.push({ where: r.where, status: "skipped", error: r.skipped });
      continue;
    }
    // --strict checks every row with the server's own schema before anything is sent.
    const error = r.unreadable ?? (options.strict ? localError(r.contact) : undefined);
    if (error && options.strict) throw new CliError(`${r.where}: invalid: ${error} (--strict: nothing was imported)`, EXIT.usage);
    if (r.unreadable) {
      report.invalid++;
      report.rows.push({ where: r.where, status: "invalid", error });
      ctx.info(`${r.where}: invalid: ${error}`);
      continue;
    }
    // Invalid rows still go to the server, which has the final word and reports them.
    sendable.push({ where: r.where, contact: r.contact! });
  }
  const progress = rateProgress(ctx.io, ctx.clock, "rows", sendable.length);
  let sent = 0;
  try {
    for (let size = Math.min(FIRST_CHUNK, options.batchSize); sent < sendable.length; ) {
      // In-process, a chunk may be answered without any I/O: give SIGINT a turn to be heard.
      await new Promise((resolve) => setImmediate(resolve));
      if (interruptRequested(ctx)) break;
      const chunk = sendable.slice(sent, sent + size);
      const contacts = chunk.map((b) => b.contact);
      const started = ctx.clock.now().getTime();
      const result = await client.call("contacts.import", { body: options.tags.length ? { contacts, tags: options.tags } : { contacts } });
      for (const outcome of result.results) {
        const where = chunk[outcome.index]!.where;
        report.rows.push({ where, status: outcome.status, id: outcome.id, error: outcome.error });
        if (outcome.status === "created") report.created++;
        else {
          if (outcome.status === "duplicate") report.duplicates++;
          else if (outcome.status === "invalid") report.invalid++;
          else report.limitReached++;
          progress.log(`${where}: ${outcome.status.replace("_", " ")}${outcome.error ? `: ${outcome.error}` : ""}`);
        }
      }
      sent += chunk.length;
      progress.update(sent);
      size = nextChunkSize(chunk.length, ctx.clock.now().getTime() - started, options.batchSize);
    }
  } finally {
    progress.stop();
  }
  if (sent < sendable.length) {
    const rowsTotal = records.length;
    const rowsDone = rowsTotal - (sendable.length - sent);
    report.interrupted = { rowsDone, rowsTotal };
    ctx.info(
      `interrupted after ${rowsDone.toLocaleString("en")} of ${plural(rowsTotal, "row")}: ${tallyLine(report)}. ` +
        "Re-run the same command to import the rest: the rows already imported are then reported as duplicates, not imported twice.",
    );
  } else ctx.info(tallyLine(report));
  return report;
}

function localError(contact: Record<string, unknown> | undefined): string | undefined {
  const parsed = ContactInput.safeParse(contact);
  return parsed.success ? undefined : describeZodError(parsed.error, "contact");
}
