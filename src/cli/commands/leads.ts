import type { Command } from "commander";
import { ApiError } from "../../client/api-client.js";
import { distanceKm } from "../../core/geo.js";
import { DEFAULT_RADIUS_KM, PlaceSourceName, SearchSort, type Lead, type SearchInput, type SearchResult } from "../../core/schemas/lead.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { choiceFlag, mutuallyExclusive, numberFlag, pagesFlag } from "../flags.js";
import { withDataSink, type DataSink } from "../data-sink.js";
import { enrichmentFailureSummary } from "../enrichment-summary.js";
import { leadsToCsv } from "../lead-output.js";
import { chooseDataFormat } from "../output-format.js";
import { printRows } from "../output.js";
import { progressSpinner } from "../progress-spinner.js";
import { registerLeadsRetry } from "./leads-retry.js";
import { example } from "./shared.js";
import { apiFields } from "../flag-language.js";

interface SearchOptions {
  location?: string;
  keywords: string;
  radius?: string;
  lat?: string;
  lng?: string;
  placeId?: string;
  pageToken?: string;
  pages?: string;
  all?: boolean;
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
  out?: string;
  complete?: boolean;
  refresh?: boolean;
  sort?: string;
  source?: string;
}

/** The request body from the flags; bounds are the server's to check (its 400 names the field). */
export function searchInputFromFlags(options: SearchOptions): SearchInput {
  const lat = numberFlag("--lat", options.lat);
  const lng = numberFlag("--lng", options.lng);
  if ((lat === undefined) !== (lng === undefined)) throw new UsageError("--lat and --lng go together: give both or neither");
  const location = options.location ?? (lat !== undefined ? `${lat},${lng}` : undefined);
  if (!location) throw new UsageError("missing --location (or --lat and --lng)");
  const sort = choiceFlag("--sort", options.sort?.trim().toLowerCase(), SearchSort.options);
  return {
    location,
    keywords: options.keywords,
    radiusKm: numberFlag("--radius", options.radius) ?? null,
    lat: lat ?? null,
    lng: lng ?? null,
    locationPlaceId: options.placeId ?? null,
    pageToken: options.pageToken ?? null,
    ...(sort ? { sort } : {}),
    // Only sent when asked: a server that predates the flag rejects unknown fields.
    ...(options.refresh ? { refresh: true } : {}),
    ...(options.source !== undefined ? { sources: sourcesFlag(options.source) } : {}),
  };
}

/** `--source local,google`: known names, each once (whether the server has them configured is its 400 to give). */
function sourcesFlag(value: string): NonNullable<SearchInput["sources"]> {
  const names = value.split(",").map((n) => n.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0) throw new UsageError(`--source: give one or more of ${PlaceSourceName.options.join(", ")}, comma-separated`);
  const parsed: PlaceSourceName[] = [];
  for (const name of names) {
    const result = PlaceSourceName.safeParse(name);
    if (!result.success) throw new UsageError(`--source: unknown source ${JSON.stringify(name)} (known: ${PlaceSourceName.options.join(", ")})`);
    if (!parsed.includes(result.data)) parsed.push(result.data);
  }
  return parsed;
}

/** The `leads` command group; exported so `leads retry` can be attached (`registerLeadsRetry(leadsCommand, ctx)`). */
export function registerLeads(program: Command, ctx: CommandContext): Command {
  const leads = program.command("leads").description("search local businesses (leads) around a place");

  const search = leads
    .command("search")
    .description("search businesses by keywords within a radius of a place (one page of ≤ 20, or more with --pages/--all)")
    .requiredOption("--keywords <text>", "what to look for: names or categories (\"dentist\", \"italian restaurant\")")
    .option("--location <text>", "city, postcode or \"city, country\" (\"9490 Vaduz\", \"Paris, FR\")")
    .option("--radius <km>", "radius of the strict circle in km, 1..100 (default 5)")
    .option("--lat <deg>", "centre latitude (with --lng; wins over --location)")
    .option("--lng <deg>", "centre longitude (with --lat)")
    .option("--place-id <id>", "centre on a provider place ID (e.g. osm:node:123)")
    .option("--sort <order>", "order of the leads across pages: relevance (default: category matches first, then by distance), distance or name")
    .option("--page-token <token>", "continue a search from its nextPageToken (same other flags)")
    .option("--pages <n>", "fetch up to N pages, following nextPageToken (pages after the first are free)")
    .option("--all", "fetch every page")
    .option("--json", "print the final result as JSON (pages merged)")
    .option("--ndjson", "print the raw NDJSON stream lines of every page")
    .option("--csv", "print CSV: one row per lead, socials and sources as columns")
    .option("--out <file>", "write the data to FILE instead of stdout (format from the flag, else from the extension: .csv, .ndjson/.jsonl, .json, else tab-separated)")
    .option("--complete", "when the search leaves website enrichment pending, run the retry too and merge it by placeId (one export)")
    .option("--refresh", "read the leads' websites again instead of answering from the enrichment cache")
    .option("--source <names>", `place sources to read, comma-separated: ${PlaceSourceName.options.join(", ")} (default: the server's setting)`)
    .action(async (options: SearchOptions) => {
      const format = chooseDataFormat(options);
      mutuallyExclusive({ "--complete": options.complete, "--ndjson": format === "ndjson" || undefined }, "--complete merges results: use it with --json, --csv or the table, not --ndjson");
      const pages = pagesFlag(options.pages, options.all);
      const input = searchInputFromFlags(options);
      const client = await ctx.client({ sampleOnFirstUse: true });
      // Every page's warnings (an empty index near the centre, a source that failed), said once.
      const warnings = new Set<string>();
      // Requests spent on outside sources (Google bills per request), summed over the pages.
      const requests: Record<string, number> = {};
      const outcome = await withDataSink(ctx.io, options.out, async (sink) => {
        // Not over NDJSON on the same terminal: the lines would run into the spinner.
        const spin = progressSpinner(ctx.io, "searching…", { show: !(format === "ndjson" && !sink.toFile) });
        const merged = new Map<string, Lead>();
        const retryTokens: string[] = [];
        let last: SearchResult | undefined;
        let pagesRead = 0;
        try {
          let pageToken = input.pageToken;
          for (let page = 1; page <= pages; page++) {
            ctx.io.signal?.throwIfAborted();
            let result: SearchResult | undefined;
            try {
              for await (const line of client.stream("leads.search", { body: { ...input, pageToken }, signal: ctx.io.signal })) {
                if (format === "ndjson") sink.write(line.raw + "\n");
                if (line.type === "complete") result = line.data;
                spin.update(`${merged.size + (line.type === "complete" ? 0 : line.data.leads.length)} leads · page ${page}`);
              }
            } catch (err) {
              // --ndjson prints the stream as it came, its error line included.
              if (format === "ndjson" && err instanceof ApiError && err.body.type === "error") sink.write(JSON.stringify(err.body) + "\n");
              throw err;
            }
            if (!result) break;
            pagesRead = page;
            for (const lead of result.leads) merged.set(lead.placeId, lead);
            for (const warning of result.warnings ?? []) warnings.add(warning);
            for (const [source, n] of Object.entries(result.requests ?? {})) requests[source] = (requests[source] ?? 0) + n;
            if (result.enrichmentRetryToken) retryTokens.push(result.enrichmentRetryToken);
            last = result;
            spin.update(`${merged.size} leads · page ${page}`);
            if (!result.nextPageToken) break;
            pageToken = result.nextPageToken;
          }
          if (options.complete) {
            for (const token of retryTokens) {
              spin.update(`${merged.size} leads · finishing website enrichment`);
              // The retry answers only the leads it covered: they replace theirs by placeId.
              const { leads: retried } = await client.call("leads.enrichmentRetry", { body: { token }, signal: ctx.io.signal });
              for (const lead of retried) merged.set(lead.placeId, lead);
            }
            if (last) last = { ...last, enrichmentRetryToken: null };
          }
        } finally {
          spin.stop();
        }
        if (!last) return undefined;
        const all = [...merged.values()];
        // Pages merged: the warnings and request counts of every page, not only the last one's.
        const notes = { ...(warnings.size ? { warnings: [...warnings] } : {}), ...(Object.keys(requests).length ? { requests } : {}) };
        if (format === "json") sink.write(JSON.stringify({ ...last, leads: all, ...notes }, null, 2) + "\n");
        else if (format === "csv") sink.write(leadsToCsv(all, last.center));
        else if (format === "plain") writeTable(ctx, sink, all, last.center);
        return { last, leads: all, pagesRead, retryTokens: options.complete ? [] : retryTokens };
      });
      for (const warning of warnings) ctx.warn(warning);
      const spent = Object.entries(requests).filter(([, n]) => n > 0);
      if (spent.length) ctx.info(`requests to outside sources: ${spent.map(([source, n]) => `${source} ${n}`).join(", ")}`);
      if (!outcome) return;
      const { last, leads: found, pagesRead, retryTokens } = outcome;
      if (last.didYouMean) {
        ctx.info(
          found.length === 0
            ? `no leads for ${JSON.stringify(input.keywords)}; did you mean ${JSON.stringify(last.didYouMean)}?`
            : `nothing matched ${JSON.stringify(input.keywords)} as typed; did you mean ${JSON.stringify(last.didYouMean)}? (showing its leads)`,
        );
      }
      for (const line of enrichmentFailureSummary(found)) ctx.info(line);
      if (format === "csv" || format === "plain") {
        // What the location was understood as (--json and --ndjson carry it as resolvedLocation and center).
        ctx.info(locationLine(input, last));
        ctx.info(`${found.length} lead${found.length === 1 ? "" : "s"}${last.nextPageToken ? ` (${morePagesHint(pagesRead)})` : ""}`);
        if (last.quota) ctx.info(quotaLine(last.quota));
        if (options.out) ctx.info(`written to ${options.out}`);
        // The table, TSV and CSV do not carry the retry token (--json and --ndjson do).
        const pendingLine = pendingLeadsLine(found, retryTokens);
        if (pendingLine) ctx.info(pendingLine);
      }
    });
  apiFields(search, { radiusKm: "--radius", locationPlaceId: "--place-id" });
  example(
    search,
    "outreach leads search --location Vaduz --keywords dentist",
    "outreach leads search --location Monaco --keywords restaurant",
    "outreach leads search --location Vaduz --keywords dentist --source local,google",
    'outreach leads search --location "9490 Vaduz" --keywords restaurant --radius 10 --all --csv --out leads.csv',
    "outreach leads search --lat 47.141 --lng 9.5209 --keywords cafe --ndjson | jq -c .type",
    "outreach leads search --location Schaan --keywords hairdresser --all --complete --csv --out leads.csv",
  );
  registerLeadsRetry(leads, ctx);
  return leads;
}

/**
 * `2 leads still pending: outreach leads retry <token>`: what finishes the website
 * enrichment the search's budget cut short (one retry per page that left some).
 */
export function pendingLeadsLine(leads: readonly Lead[], retryTokens: readonly string[]): string | undefined {
  const pending = leads.filter((lead) => lead.enrichmentPending).length;
  if (pending === 0 || retryTokens.length === 0) return undefined;
  return `${pending} lead${pending === 1 ? "" : "s"} still pending: ${retryTokens.map((token) => `outreach leads retry ${token}`).join(" ; ")}`;
}

function quotaLine(quota: NonNullable<SearchResult["quota"]>): string {
  if (quota.limit === null) return `quota: ${quota.used} searches today, unlimited (${quota.plan} plan)`;
  return `quota: ${quota.remaining} of ${quota.limit} searches left today (${quota.plan} plan, resets ${quota.resetAt})`;
}

/** Where the search looked, so an empty or odd result explains itself. */
function locationLine(input: SearchInput, result: SearchResult): string {
  const radius = input.radiusKm ?? DEFAULT_RADIUS_KM;
  const place = result.resolvedLocation;
  const where = place
    ? `${place.name} (${place.kind}, ${place.lat.toFixed(5)}, ${place.lng.toFixed(5)})`
    : `${input.location} (${result.center.lat.toFixed(5)}, ${result.center.lng.toFixed(5)})`;
  return `around ${where}, within ${radius} km`;
}

/**
 * There are more pages: say how to get them (a flag to repeat the search with), not the
 * page token itself, which is hundreds of characters long (`--json` carries it).
 */
function morePagesHint(pagesRead: number): string {
  return `more on the next pages: --pages ${pagesRead + 1} or --all`;
}

function writeTable(ctx: CommandContext, sink: DataSink, leads: Lead[], center: SearchResult["center"]): void {
  printRows(sink.asIO(), ctx.env, leads, [
    { header: "NAME", value: (l) => l.name },
    { header: "KM", value: (l) => distanceKm(center, l).toFixed(1) },
    { header: "CATEGORY", value: (l) => l.categories[0] ?? "" },
    { header: "PHONE", value: (l) => l.phone },
    { header: "WEBSITE", value: (l) => l.website },
    { header: "EMAIL", value: (l) => l.email },
  ]);
}
