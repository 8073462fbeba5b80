import type { Command } from "commander";
import { resolve } from "node:path";
import { isAppError } from "../../core/errors.js";
import {
  checkImportFile,
  GEONAMES_ATTRIBUTION,
  OSM_ATTRIBUTION,
  OVERTURE_ATTRIBUTION,
  parseBoundingBox,
  SAMPLE_DESCRIPTION,
  samplePath,
  type DownloadProgress,
  type ImportProgress,
  type ImportSummary,
  type RegionDownloadResult,
} from "../../places/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, exitCodeFor, UsageError } from "../exit-codes.js";
import { printJson, printRecord, printRows } from "../output.js";
import { progressSpinner } from "../progress-spinner.js";
import { example, withJson } from "./shared.js";

/**
 * `outreach places`: the local places index is the server's shared data, managed by the
 * operator on the machine that holds the data directory (like `outreach admin`), so these
 * commands open the store directly and refuse a remote server.
 */
export function registerPlaces(program: Command, ctx: CommandContext): void {
  const places = program.command("places").description("manage the local places index that lead searches use (import OSM, Overture, CSV/NDJSON; stats)");

  const importCommand = withJson(
    places
      .command("import")
      .description("import places from OSM (.osm.pbf, .osm, .osm.bz2), Overture places (.parquet), or your own list (.csv, .ndjson)")
      .argument("[files...]", "files to import, in order")
      .option("--sample", `import the bundled sample: ${SAMPLE_DESCRIPTION}`)
      .option("--bbox <minLng,minLat,maxLng,maxLat>", "keep only places inside this box")
      .option("--replace", "drop everything previously imported from a file of the same name first")
      .option("--encoding <name>", "a CSV's text encoding (default: detected: a BOM, else UTF-8, else Windows-1252)"),
  ).action(async (given: string[], options: { sample?: boolean; bbox?: string; replace?: boolean; encoding?: string; json?: boolean }) => {
    if (given.length === 0 && !options.sample) throw new UsageError("give the files to import, or --sample for the bundled Monaco extract");
    const files = options.sample ? [samplePath(), ...given] : given;
    let bbox;
    try {
      bbox = options.bbox === undefined ? undefined : parseBoundingBox(options.bbox);
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
    // Check every file before importing any, so a typo in the third name costs nothing.
    for (const file of files) {
      const notice = checkImportFile(resolve(file), { encoding: options.encoding });
      if (notice) ctx.warn(notice);
    }
    const service = ctx.openInstance().services.placesImport;
    const summaries: ImportSummary[] = [];
    for (const file of files) {
      const spinner = progressSpinner(ctx.io, `${file}: reading…`);
      let summary: ImportSummary;
      try {
        summary = await service.importFile(file, {
          bbox,
          replace: options.replace,
          encoding: options.encoding,
          signal: ctx.io.signal,
          onProgress: (p) => spinner.update(progressLine(p)),
        });
      } catch (err) {
        // Ctrl-C: the one line is main's "interrupted".
        stopSpinner(spinner, err, `${file}: import stopped`);
        if (summaries.length) ctx.info(`Already imported: ${summaries.map((s) => s.file).join(", ")}.`);
        if (isAppError(err)) throw new CliError(err.message, EXIT.usage);
        throw err;
      }
      spinner.succeed(
        summary.unchangedFile
          ? `${summary.file}: unchanged since its last import (${summary.total.toLocaleString("en")} places), nothing to do`
          : `${summary.file}: ${summary.total.toLocaleString("en")} places in ${summary.seconds.toFixed(1)} s`,
      );
      summaries.push(summary);
      if (!options.json) printSummary(ctx, summary);
      const nothing = noPlacesReason(summary);
      if (nothing) {
        if (options.json) printJson(ctx.io, summaries);
        throw new CliError(`${file}: ${nothing}`, EXIT.usage);
      }
    }
    if (options.json) printJson(ctx.io, summaries);
  });
  example(
    importCommand,
    "outreach places import --sample",
    "outreach places import ../shared/data/liechtenstein-2026-03-29.osm.pbf",
    "outreach places import places.parquet --bbox 11.36,48.06,11.72,48.25",
    "outreach places import my-dentists.csv --replace --json",
  );

  const stats = withJson(places.command("stats").description("places per source, data dates, licences and the attribution you must show")).action(
    (options: { json?: boolean }) => {
      const { sources, index } = ctx.openInstance().services.placesImport.stats();
      const kinds = new Set(sources.map((s) => s.kind));
      const attribution = [
        ...(kinds.has("osm") ? [OSM_ATTRIBUTION] : []),
        ...(kinds.has("overture") ? [OVERTURE_ATTRIBUTION] : []),
        GEONAMES_ATTRIBUTION,
      ];
      if (options.json) {
        return printJson(ctx.io, {
          sources: sources.map((s) => ({
            name: s.name,
            kind: s.kind,
            dataDate: s.data_date,
            licence: s.licence,
            attribution: s.attribution,
            importedAt: s.imported_at,
            status: s.status,
            places: s.place_count,
            withWebsite: s.with_website,
            withPhone: s.with_phone,
            withEmail: s.with_email,
          })),
          index,
          attribution,
        });
      }
      if (sources.length === 0) ctx.info("The places index is empty: import an extract with `outreach places import FILE` (see docs/data.md).");
      printRows(ctx.io, ctx.env, sources, [
        { header: "SOURCE", value: (s) => s.name },
        { header: "KIND", value: (s) => s.kind },
        { header: "DATA DATE", value: (s) => s.data_date ?? "unknown" },
        { header: "PLACES", value: (s) => s.place_count },
        { header: "WEBSITE", value: (s) => s.with_website },
        { header: "PHONE", value: (s) => s.with_phone },
        { header: "EMAIL", value: (s) => s.with_email },
        { header: "LICENCE", value: (s) => s.licence },
        { header: "STATUS", value: (s) => sourceStatus(s.status) },
      ]);
      // On a terminal the attribution follows the table; piped, stdout stays pure rows.
      const write = (line: string) => (ctx.io.stdoutIsTTY ? ctx.io.stdout.write(line + "\n") : ctx.info(line));
      write(`\n${index.places.toLocaleString("en")} places; localities: ${index.cities} cities, ${index.postcodes} postcodes.`);
      if (index.staleCells > 0) {
        write(`${index.staleCells.toLocaleString("en")} cells of the search index wait for a rebuild (an import was cut short): searches there are slower until \`outreach places reindex\`.`);
      }
      write("Attribution (show it wherever results are shown):");
      for (const line of attribution) write(`  ${line}`);
    },
  );
  example(stats, "outreach places stats", "outreach places stats --json");

  const download = withJson(
    places
      .command("download")
      .description("download a region's OpenStreetMap extract from Geofabrik (checked against its MD5, resumed when interrupted, kept in the data directory)")
      .argument("[region]", "region id or name from Geofabrik's index (\"liechtenstein\", \"us/california\", \"Bayern\")")
      .option("--import", "import it when downloaded (replacing the region's earlier import)")
      .option("--list [filter]", "list the regions (whose id, name or parent contains FILTER) instead of downloading"),
  ).action(async (regionQuery: string | undefined, options: { import?: boolean; list?: string | boolean; json?: boolean }) => {
    const service = ctx.openInstance().services.regionDownloads;
    if (options.list !== undefined) {
      const regions = await withUsageErrors(() => service.list(typeof options.list === "string" ? options.list : undefined, ctx.io.signal));
      if (options.json) return printJson(ctx.io, regions);
      printRows(ctx.io, ctx.env, regions, [
        { header: "ID", value: (r) => r.id },
        { header: "NAME", value: (r) => r.name },
        { header: "PARENT", value: (r) => r.parent ?? "" },
      ]);
      return;
    }
    if (!regionQuery) throw new UsageError("name a region to download (`outreach places download --list` lists them)");
    const spinner = progressSpinner(ctx.io, `${regionQuery}: looking it up in Geofabrik's index…`);
    let result;
    try {
      result = await withUsageErrors(() =>
        service.download(regionQuery, {
          import: options.import,
          signal: ctx.io.signal,
          onDownload: (p) => spinner.update(downloadLine(p)),
          onImport: (p) => spinner.update(`${p.file}: ${p.places.toLocaleString("en")} places, ${p.skipped.toLocaleString("en")} skipped`),
        }),
      );
    } catch (err) {
      stopSpinner(spinner, err, `${regionQuery}: download stopped`);
      throw err;
    }
    spinner.stop();
    reportDownload(ctx, result);
    if (options.json) printJson(ctx.io, result);
    else if (result.imported) printSummary(ctx, result.imported);
    if (!options.import) ctx.info(`Import it with \`outreach places import ${result.record.file}\`, or run this again with --import.`);
  });
  example(download, "outreach places download --list europe", "outreach places download liechtenstein --import", "outreach places download us/california");

  const update = withJson(
    places.command("update").description("re-download (and re-import) every downloaded region whose extract Geofabrik has replaced since"),
  ).action(async (options: { json?: boolean }) => {
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
  });
  example(update, "outreach places update");

  const reindex = withJson(
    places.command("reindex").description("rebuild the packed search index where it is out of date (an import does this when it ends; needed only after one was killed)"),
  ).action((options: { json?: boolean }) => {
    const result = ctx.openInstance().services.placesImport.reindex();
    if (options.json) return printJson(ctx.io, result);
    ctx.info(`${result.cells.toLocaleString("en")} cells rebuilt in ${result.seconds.toFixed(1)} s.`);
  });
  example(reindex, "outreach places reindex");
}

/** A service's refusal (unknown region, a failed download) is the user's to fix: exit 2 with its message. */
async function withUsageErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isAppError(err) || (err instanceof Error && err.name === "ServiceError")) throw new CliError(err.message, isAppError(err) ? EXIT.usage : EXIT.quota);
    throw err;
  }
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}

/** "liechtenstein: 1.2 of 3.3 MB (36 %), 5.1 MB/s, ETA 1 s" */
export function downloadLine(p: DownloadProgress): string {
  const size = p.total ? `${megabytes(p.bytes)} of ${megabytes(p.total)} MB (${Math.floor((100 * p.bytes) / p.total)} %)` : `${megabytes(p.bytes)} MB`;
  const eta = p.etaSeconds === null ? "" : `, ETA ${Math.ceil(p.etaSeconds)} s`;
  return `${p.region}: ${size}, ${megabytes(p.rate)} MB/s${eta}`;
}

function reportDownload(ctx: CommandContext, result: RegionDownloadResult): void {
  const { record } = result;
  const how = !result.downloaded ? "already in the cache, unchanged" : result.resumed ? "downloaded (resumed)" : "downloaded";
  ctx.info(`${record.id}: ${how}, ${megabytes(record.bytes)} MB, MD5 ${record.md5} checked → ${record.file}`);
}

/**
 * Why a user's own list (CSV, NDJSON) gave no place at all, when it did: "added 0" and exit 0
 * would read as success. Rows left out by --bbox are what was asked for, not a failure.
 */
function noPlacesReason(s: ImportSummary): string | undefined {
  if (s.unchangedFile || s.total > 0 || (s.source.kind !== "csv" && s.source.kind !== "ndjson")) return undefined;
  const rejected = s.skipped["invalid row"] ?? 0;
  if (rejected > 0) return `no row became a place: all ${rejected.toLocaleString("en")} rows were rejected (${s.rejectedRows[0] ?? "see above"}${rejected > 1 ? ", …" : ""})`;
  if (Object.keys(s.skipped).length === 0) return "the file has no rows: nothing to import";
  return undefined;
}

function printSummary(ctx: CommandContext, s: ImportSummary): void {
  const skipped = Object.entries(s.skipped)
    .map(([reason, n]) => `${n} ${reason}`)
    .join(", ");
  printRecord(ctx.io, [
    ["file", s.file],
    ...(s.continuesSource ? [["continues", `${s.continuesSource} (an older extract of the same region)`] as [string, string]] : []),
    ["kind", s.source.kind],
    ["data date", s.source.dataDate ?? "unknown"],
    ["added", s.added],
    ["updated", s.updated],
    ["unchanged", s.unchanged],
    ["removed", s.removed],
    ["skipped", skipped || "0"],
    ["places", s.total],
    ["with website", s.withWebsite],
    ["with phone", s.withPhone],
    ["with email", s.withEmail],
    ["licence", s.source.licence],
  ]);
  for (const line of s.rejectedRows) ctx.warn(`${s.file} ${line}`);
  const rejected = s.skipped["invalid row"] ?? 0;
  if (rejected > s.rejectedRows.length) ctx.warn(`${s.file}: ${rejected - s.rejectedRows.length} more rejected rows not shown (use --json for the counts)`);
}

/**
 * A source's state as the user must read it: a plain import that stopped (Ctrl-C, an
 * error) kept the batches it wrote, searchable, and the next import of the file completes
 * them. (A --replace that stopped never shows here: the region's earlier import stands.)
 */
export function sourceStatus(status: "importing" | "complete" | "failed"): string {
  if (status === "complete") return "complete";
  if (status === "failed") return "partial (stopped; its places so far are searchable: import the file again to complete it)";
  return "importing (if no import runs, it was killed: import the file again)";
}

/** A spinner's end when its command fails: its failure line, but none when the user pressed Ctrl-C (main says "interrupted"). */
function stopSpinner(spinner: ReturnType<typeof progressSpinner>, err: unknown, failure: string): void {
  if (exitCodeFor(err) === EXIT.interrupted) spinner.stop();
  else spinner.fail(failure);
}

const MB = 1e6;
const PASSES = ["", "businesses", "relations' ways", "way nodes"];

/** "germany.osm.pbf: 120/3,900 MB (3 %, businesses), 12,000 places at 5,300/s, 2 skipped, ~12 min left in this pass". */
export function progressLine(p: ImportProgress): string {
  if (p.finishing) {
    const { finishing } = p;
    const step =
      finishing.step === "search index"
        ? `packing the search index (${finishing.packed > 0 ? `${finishing.packed.toLocaleString("en")} of ` : ""}${finishing.cells.toLocaleString("en")} grid cells)`
        : finishing.step === "replacing"
          ? "replacing the earlier import's places in one step"
          : "rebuilding the localities";
    return `${p.file}: ${p.places.toLocaleString("en")} places ${finishing.step === "replacing" ? "read" : "written"}; ${step}…`;
  }
  const parts = [`${p.places.toLocaleString("en")} places at ${Math.round(p.placesPerSecond).toLocaleString("en")}/s`, `${p.skipped.toLocaleString("en")} skipped`];
  if (p.read) {
    const share = p.read.totalBytes > 0 ? Math.floor((100 * p.read.bytes) / p.read.totalBytes) : 100;
    parts.unshift(`${Math.round(p.read.bytes / MB).toLocaleString("en")}/${Math.round(p.read.totalBytes / MB).toLocaleString("en")} MB (${share} %, ${PASSES[p.read.pass] ?? `pass ${p.read.pass}`})`);
  }
  if (p.passEtaSeconds !== null) parts.push(`~${p.passEtaSeconds >= 90 ? `${Math.round(p.passEtaSeconds / 60)} min` : `${Math.ceil(p.passEtaSeconds)} s`} left in this pass`);
  return `${p.file}: ${parts.join(", ")}`;
}
