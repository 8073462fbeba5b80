import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { printJson } from "../../output.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb, type JsonOption } from "../shared.js";
import { stopSpinner } from "./import-report.js";
import { downloadLine, reportDownload, withUsageErrors } from "./region-report.js";

/** `outreach places update`: every downloaded region whose extract Geofabrik has replaced, downloaded (and imported) again. */
export type UpdateOptions = JsonOption;

export function registerUpdate(places: Command, ctx: CommandContext): void {
  defineVerb(
    places,
    { name: "update", description: "re-download (and re-import) every downloaded region whose extract Geofabrik has replaced since", json: true, examples: ["outreach places update"] },
  ).action((options: UpdateOptions) => runUpdate(ctx, options));
}

export async function runUpdate(ctx: CommandContext, options: UpdateOptions): Promise<void> {
  const service = ctx.openInstance().services.regionDownloads;
  if (Object.keys(service.records()).length === 0) {
    ctx.info("No region downloaded yet: `outreach places download <region> --import` first.");
    if (options.json) printJson(ctx.io, []);
    return;
  }
  const spinner = progressSpinner(ctx.io, "checking Geofabrik for newer extracts…");
  let results;
  try {
    results = await withUsageErrors(() =>
      service.update({
        signal: ctx.io.signal,
        onDownload: (p) => spinner.update(downloadLine(p)),
        onImport: (p) => spinner.update(`${p.file}: ${p.places.toLocaleString("en")} places`),
      }),
    );
  } catch (err) {
    stopSpinner(spinner, err, "update stopped");
    throw err;
  }
  spinner.stop();
  for (const { id, result } of results) {
    if (result) reportDownload(ctx, result);
    else ctx.info(`${id}: up to date`);
  }
  if (options.json) printJson(ctx.io, results);
}
