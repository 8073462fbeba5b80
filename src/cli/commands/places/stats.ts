import type { Command } from "commander";
import { GEONAMES_ATTRIBUTION, OSM_ATTRIBUTION, OVERTURE_ATTRIBUTION } from "../../../places/index.js";
import type { Instance } from "../../../services/instance.js";
import type { CommandContext } from "../../context.js";
import { printJson, printRows } from "../../output.js";
import { defineVerb, type JsonOption } from "../shared.js";

/** `outreach places stats`: places per source, data dates, licences and the attribution to show. */
export type StatsOptions = JsonOption;

type PlaceStats = ReturnType<Instance["services"]["placesImport"]["stats"]>;

export function registerStats(places: Command, ctx: CommandContext): void {
  defineVerb(
    places,
    {
      name: "stats",
      description: "places per source, data dates, licences and the attribution you must show",
      json: true,
      examples: ["outreach places stats", "outreach places stats --json"],
    },
  ).action((options: StatsOptions) => runStats(ctx, options));
}

export function runStats(ctx: CommandContext, options: StatsOptions): void {
  const stats = ctx.openInstance().services.placesImport.stats();
  const kinds = new Set(stats.sources.map((s) => s.kind));
  const attribution = [...(kinds.has("osm") ? [OSM_ATTRIBUTION] : []), ...(kinds.has("overture") ? [OVERTURE_ATTRIBUTION] : []), GEONAMES_ATTRIBUTION];
  if (options.json) return printJson(ctx.io, statsJson(stats, attribution));
  printStats(ctx, stats, attribution);
}

/** The stats as `--json` prints them: the API's camelCase names. */
function statsJson({ sources, index }: PlaceStats, attribution: string[]) {
  return {
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
  };
}

function printStats(ctx: CommandContext, { sources, index }: PlaceStats, attribution: string[]): void {
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
