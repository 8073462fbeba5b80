import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printJson, printRows } from "../../output.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb } from "../shared.js";
import { printSummary, stopSpinner } from "./import-report.js";
import { downloadLine, reportDownload, withUsageErrors } from "./region-report.js";

/** `outreach places download [REGION]`: a Geofabrik extract, or with --list the regions there are. */
export interface DownloadFlags {
  import?: boolean;
  list?: string | boolean;
  json?: boolean;
}

export type DownloadOptions = { list: true; filter?: string; json?: boolean } | { list: false; region: string; import?: boolean; json?: boolean };

export function registerDownload(places: Command, ctx: CommandContext): void {
  defineVerb(
    places,
    {
      name: "download",
      description: "download a region's OpenStreetMap extract from Geofabrik (checked against its MD5, resumed when interrupted, kept in the data directory)",
      json: true,
      examples: ["outreach places download --list europe", "outreach places download liechtenstein --import", "outreach places download us/california"],
    },
    (command) =>
      command
        .argument("[region]", "region id or name from Geofabrik's index (\"liechtenstein\", \"us/california\", \"Bayern\")")
        .option("--import", "import it when downloaded (replacing the region's earlier import)")
        .option("--list [filter]", "list the regions (whose id, name or parent contains FILTER) instead of downloading"),
  ).action((region: string | undefined, flags: DownloadFlags) => runDownload(ctx, parseDownloadOptions(region, flags)));
}

export function parseDownloadOptions(region: string | undefined, flags: DownloadFlags): DownloadOptions {
  if (flags.list !== undefined) return { list: true, filter: typeof flags.list === "string" ? flags.list : undefined, json: flags.json };
  if (!region) throw new UsageError("name a region to download (`outreach places download --list` lists them)");
  return { list: false, region, import: flags.import, json: flags.json };
}

export async function runDownload(ctx: CommandContext, options: DownloadOptions): Promise<void> {
  const service = ctx.openInstance().services.regionDownloads;
  if (options.list) {
    const regions = await withUsageErrors(() => service.list(options.filter, ctx.io.signal));
    if (options.json) return printJson(ctx.io, regions);
    printRows(ctx.io, ctx.env, regions, [
      { header: "ID", value: (r) => r.id },
      { header: "NAME", value: (r) => r.name },
      { header: "PARENT", value: (r) => r.parent ?? "" },
    ]);
    return;
  }
  const spinner = progressSpinner(ctx.io, `${options.region}: looking it up in Geofabrik's index…`);
  let result;
  try {
    result = await withUsageErrors(() =>
      service.download(options.region, {
        import: options.import,
        signal: ctx.io.signal,
        onDownload: (p) => spinner.update(downloadLine(p)),
        onImport: (p) => spinner.update(`${p.file}: ${p.places.toLocaleString("en")} places, ${p.skipped.toLocaleString("en")} skipped`),
      }),
    );
  } catch (err) {
    stopSpinner(spinner, err, `${options.region}: download stopped`);
    throw err;
  }
  spinner.stop();
  reportDownload(ctx, result);
  if (options.json) printJson(ctx.io, result);
  else if (result.imported) printSummary(ctx, result.imported);
  if (!options.import) ctx.info(`Import it with \`outreach places import ${result.record.file}\`, or run this again with --import.`);
}
