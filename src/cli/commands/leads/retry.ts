import type { Command } from "commander";
import type { Lead } from "../../../core/schemas/lead.js";
import type { CommandContext } from "../../context.js";
import { withDataSink } from "../../data-sink.js";
import { UsageError } from "../../exit-codes.js";
import { LEAD_TABLE_COLUMNS, leadsToCsv } from "../../lead-output.js";
import { chooseDataFormat, type DataFormat, type DataFormatFlags } from "../../output-format.js";
import { printRows } from "../../output.js";
import { defineVerb } from "../shared.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `outreach leads retry TOKEN`: endpoint 2 from the command line. */
export interface RetryOptions {
  token: string;
  format: DataFormat;
  out?: string;
}

export function registerRetry(leads: Command, ctx: CommandContext): void {
  defineVerb(
    leads,
    {
      name: "retry",
      description: "finish website enrichment of the leads a search left pending (enrichmentRetryToken; single use, 15 minutes)",
      examples: [
        "outreach leads retry 3f1c2b9e-6d0a-4c55-9a7e-2b1f0c8d4e61",
        "outreach leads retry 3f1c2b9e-6d0a-4c55-9a7e-2b1f0c8d4e61 --csv --out retried.csv",
        "outreach leads retry 3f1c2b9e-6d0a-4c55-9a7e-2b1f0c8d4e61 --ndjson | jq -c 'select(.type==\"complete\")'",
      ],
    },
    (command) =>
      command
        .argument("<token>", "the enrichmentRetryToken of the search (a UUID)")
        .option("--json", "print {leads} as JSON")
        .option("--ndjson", "print the stream: progress lines as leads finish, then one complete line")
        .option("--csv", "print CSV with a header row")
        .option("--out <file>", "write to a file instead of stdout (format from the flag, else from the extension: .csv, .ndjson/.jsonl, .json, else tab-separated)"),
  ).action((token: string, flags: DataFormatFlags) => runRetry(ctx, parseRetryOptions(token, flags)));
}

export function parseRetryOptions(token: string, flags: DataFormatFlags): RetryOptions {
  if (!UUID.test(token.trim())) throw new UsageError(`TOKEN must be the enrichmentRetryToken of a search, a UUID (got ${JSON.stringify(token)})`);
  return { token: token.trim(), format: chooseDataFormat(flags), out: flags.out };
}

export async function runRetry(ctx: CommandContext, { token, format, out }: RetryOptions): Promise<void> {
  const client = await ctx.client();
  const signal = ctx.io.signal;
  ctx.info("Retrying website enrichment (up to 20 leads)…");
  const result = await withDataSink(ctx.io, out, async (sink) => {
    let leads: Lead[] = [];
    if (format === "ndjson") {
      for await (const line of client.stream("leads.enrichmentRetry", { body: { token }, signal })) {
        sink.write(JSON.stringify({ type: line.type, data: line.data }) + "\n");
        if (line.type === "complete") leads = line.data.leads;
      }
      return leads;
    }
    ({ leads } = await client.call("leads.enrichmentRetry", { body: { token }, signal }));
    if (format === "json") sink.write(JSON.stringify({ leads }, null, 2) + "\n");
    else if (format === "csv") sink.write(leadsToCsv(leads));
    else printRows(sink.asIO(), ctx.env, leads, LEAD_TABLE_COLUMNS);
    return leads;
  });
  const withEmail = result.filter((l) => l.email).length;
  ctx.info(`${result.length} lead(s) enriched, ${withEmail} with an email${out ? `; written to ${out}` : ""}. Merge them into the search results by placeId.`);
}
