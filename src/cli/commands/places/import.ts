import type { Command } from "commander";
import { resolve } from "node:path";
import { isAppError } from "../../../core/errors.js";
import { checkImportFile, parseBoundingBox, SAMPLE_DESCRIPTION, samplePath, type ImportSummary } from "../../../places/index.js";
import type { Instance } from "../../../services/instance.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT, UsageError } from "../../exit-codes.js";
import { printJson } from "../../output.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb } from "../shared.js";
import { noPlacesReason, printSummary, progressLine, stopSpinner } from "./import-report.js";

/** `outreach places import`: what commander hands over. */
export interface ImportFlags {
  sample?: boolean;
  bbox?: string;
  replace?: boolean;
  encoding?: string;
  json?: boolean;
}

export interface ImportOptions {
  /** In order; the bundled sample first with --sample. */
  files: string[];
  bbox: ReturnType<typeof parseBoundingBox> | undefined;
  replace?: boolean;
  encoding?: string;
  json?: boolean;
}

export function registerImport(places: Command, ctx: CommandContext): void {
  defineVerb(
    places,
    {
      name: "import",
      description: "import places from OSM (.osm.pbf, .osm, .osm.bz2), Overture places (.parquet), or your own list (.csv, .ndjson)",
      json: true,
      examples: [
        "outreach places import --sample",
        "outreach places import ../shared/data/liechtenstein-2026-03-29.osm.pbf",
        "outreach places import places.parquet --bbox 11.36,48.06,11.72,48.25",
        "outreach places import my-dentists.csv --replace --json",
      ],
    },
    (command) =>
      command
        .argument("[files...]", "files to import, in order")
        .option("--sample", `import the bundled sample: ${SAMPLE_DESCRIPTION}`)
        .option("--bbox <minLng,minLat,maxLng,maxLat>", "keep only places inside this box")
        .option("--replace", "drop everything previously imported from a file of the same name first")
        .option("--encoding <name>", "a CSV's text encoding (default: detected: a BOM, else UTF-8, else Windows-1252)"),
  ).action((given: string[], flags: ImportFlags) => runImport(ctx, parseImportOptions(given, flags)));
}

/** Flags → options, or a usage error; whether the files exist and can be read is the run's to check (before it imports any). */
export function parseImportOptions(given: string[], flags: ImportFlags): ImportOptions {
  if (given.length === 0 && !flags.sample) throw new UsageError("give the files to import, or --sample for the bundled Monaco extract");
  const files = flags.sample ? [samplePath(), ...given] : given;
  let bbox;
  try {
    bbox = flags.bbox === undefined ? undefined : parseBoundingBox(flags.bbox);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return { files, bbox, replace: flags.replace, encoding: flags.encoding, json: flags.json };
}

export async function runImport(ctx: CommandContext, options: ImportOptions): Promise<void> {
  // Check every file before importing any, so a typo in the third name costs nothing.
  for (const file of options.files) {
    const notice = checkImportFile(resolve(file), { encoding: options.encoding });
    if (notice) ctx.warn(notice);
  }
  const service = ctx.openInstance().services.placesImport;
  const summaries: ImportSummary[] = [];
  for (const file of options.files) {
    const summary = await importOne(ctx, service, file, options, summaries);
    summaries.push(summary);
    if (!options.json) printSummary(ctx, summary);
    const nothing = noPlacesReason(summary);
    if (nothing) {
      if (options.json) printJson(ctx.io, summaries);
      throw new CliError(`${file}: ${nothing}`, EXIT.usage);
    }
  }
  if (options.json) printJson(ctx.io, summaries);
}

type PlacesImport = Instance["services"]["placesImport"];

/** One file, its progress on a spinner; a failure says which files were imported before it. */
async function importOne(ctx: CommandContext, service: PlacesImport, file: string, options: ImportOptions, before: readonly ImportSummary[]): Promise<ImportSummary> {
  const spinner = progressSpinner(ctx.io, `${file}: reading…`);
  let summary: ImportSummary;
  try {
    summary = await service.importFile(file, {
      bbox: options.bbox,
      replace: options.replace,
      encoding: options.encoding,
      signal: ctx.io.signal,
      onProgress: (p) => spinner.update(progressLine(p)),
    });
  } catch (err) {
    // Ctrl-C: the one line is main's "interrupted".
    stopSpinner(spinner, err, `${file}: import stopped`);
    if (before.length) ctx.info(`Already imported: ${before.map((s) => s.file).join(", ")}.`);
    if (isAppError(err)) throw new CliError(err.message, EXIT.usage);
    throw err;
  }
  spinner.succeed(
    summary.unchangedFile
      ? `${summary.file}: unchanged since its last import (${summary.total.toLocaleString("en")} places), nothing to do`
      : `${summary.file}: ${summary.total.toLocaleString("en")} places in ${summary.seconds.toFixed(1)} s`,
  );
  return summary;
}
