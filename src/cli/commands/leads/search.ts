import type { Command } from "commander";
import { ApiError, type ApiClient } from "../../../client/api-client.js";
import { PlaceSourceName, SearchSort, type Lead, type SearchInput, type SearchResult } from "../../../core/schemas/lead.js";
import type { CommandContext } from "../../context.js";
import { withDataSink, type DataSink } from "../../data-sink.js";
import { UsageError } from "../../exit-codes.js";
import { apiFields } from "../../flag-language.js";
import { choiceFlag, mutuallyExclusive, numberFlag, pagesFlag } from "../../flags.js";
import { leadsToCsv } from "../../lead-output.js";
import { chooseDataFormat, type DataFormat } from "../../output-format.js";
import { progressSpinner } from "../../progress-spinner.js";
import { defineVerb } from "../shared.js";
import { reportSearch, writeLeadTable, type SearchOutcome } from "./search-report.js";

/** `outreach leads search`: what commander hands over, every value as typed. */
export interface SearchFlags {
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

/** The checked options of `leads search`: the request body, how many pages, and where and how the data goes. */
export interface SearchOptions {
  input: SearchInput;
  /** Infinity with --all. */
  pages: number;
  format: DataFormat;
  out?: string;
  complete: boolean;
}

export function registerSearch(leads: Command, ctx: CommandContext): void {
  const search = defineVerb(
    leads,
    {
      name: "search",
      description: "search businesses by keywords within a radius of a place (one page of ≤ 20, or more with --pages/--all)",
      examples: [
        "outreach leads search --location Vaduz --keywords dentist",
        "outreach leads search --location Monaco --keywords restaurant",
        "outreach leads search --location Vaduz --keywords dentist --source local,google",
        'outreach leads search --location "9490 Vaduz" --keywords restaurant --radius 10 --all --csv --out leads.csv',
        "outreach leads search --lat 47.141 --lng 9.5209 --keywords cafe --ndjson | jq -c .type",
        "outreach leads search --location Schaan --keywords hairdresser --all --complete --csv --out leads.csv",
      ],
    },
    // Its --json is its own (the pages merged), among the output flags, not defineVerb's.
    (command) =>
      command
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
        .option("--source <names>", `place sources to read, comma-separated: ${PlaceSourceName.options.join(", ")} (default: the server's setting)`),
  ).action((flags: SearchFlags) => runSearch(ctx, parseSearchOptions(flags)));
  apiFields(search, { radiusKm: "--radius", locationPlaceId: "--place-id" });
}

/** Flags → options, or a usage error (exit 2) naming the flag; opens nothing. */
export function parseSearchOptions(flags: SearchFlags): SearchOptions {
  const format = chooseDataFormat(flags);
  mutuallyExclusive({ "--complete": flags.complete, "--ndjson": format === "ndjson" || undefined }, "--complete merges results: use it with --json, --csv or the table, not --ndjson");
  const pages = pagesFlag(flags.pages, flags.all);
  return { input: searchInputFromFlags(flags), pages, format, out: flags.out, complete: Boolean(flags.complete) };
}

/** The request body from the flags; bounds are the server's to check (its 400 names the field). */
export function searchInputFromFlags(options: SearchFlags): SearchInput {
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

/** What the pages of one search add up to: leads merged by placeId, and every page's notes. */
interface Pages {
  merged: Map<string, Lead>;
  last?: SearchResult;
  pagesRead: number;
  retryTokens: string[];
  /** Every page's warnings (an empty index near the centre, a source that failed), said once. */
  warnings: Set<string>;
  /** Requests spent on outside sources (Google bills per request), summed over the pages. */
  requests: Record<string, number>;
}

type Spinner = ReturnType<typeof progressSpinner>;

export async function runSearch(ctx: CommandContext, options: SearchOptions): Promise<void> {
  const client = await ctx.client({ sampleOnFirstUse: true });
  const pages: Pages = { merged: new Map(), pagesRead: 0, retryTokens: [], warnings: new Set(), requests: {} };
  const outcome = await withDataSink(ctx.io, options.out, async (sink) => {
    // Not over NDJSON on the same terminal: the lines would run into the spinner.
    const spin = progressSpinner(ctx.io, "searching…", { show: !(options.format === "ndjson" && !sink.toFile) });
    try {
      await readPages(ctx, client, options, sink, spin, pages);
      if (options.complete) await completeEnrichment(ctx, client, spin, pages);
    } finally {
      spin.stop();
    }
    return pages.last ? writeLeads(ctx, sink, options, pages, pages.last) : undefined;
  });
  reportSearch(ctx, options, pages, outcome);
}

/** Up to `options.pages` pages, following nextPageToken; --ndjson copies every stream line to the sink as it comes. */
async function readPages(ctx: CommandContext, client: ApiClient, options: SearchOptions, sink: DataSink, spin: Spinner, pages: Pages): Promise<void> {
  let pageToken = options.input.pageToken;
  for (let page = 1; page <= options.pages; page++) {
    ctx.io.signal?.throwIfAborted();
    const result = await readPage(ctx, client, { ...options.input, pageToken }, options.format, sink, (found) => spin.update(`${pages.merged.size + found} leads · page ${page}`));
    if (!result) break;
    pages.pagesRead = page;
    for (const lead of result.leads) pages.merged.set(lead.placeId, lead);
    for (const warning of result.warnings ?? []) pages.warnings.add(warning);
    for (const [source, n] of Object.entries(result.requests ?? {})) pages.requests[source] = (pages.requests[source] ?? 0) + n;
    if (result.enrichmentRetryToken) pages.retryTokens.push(result.enrichmentRetryToken);
    pages.last = result;
    spin.update(`${pages.merged.size} leads · page ${page}`);
    if (!result.nextPageToken) break;
    pageToken = result.nextPageToken;
  }
}

/** One page's stream: its complete line's result (undefined when the stream ended without one). */
async function readPage(
  ctx: CommandContext,
  client: ApiClient,
  body: SearchInput,
  format: DataFormat,
  sink: DataSink,
  onLeads: (found: number) => void,
): Promise<SearchResult | undefined> {
  let result: SearchResult | undefined;
  try {
    for await (const line of client.stream("leads.search", { body, signal: ctx.io.signal })) {
      if (format === "ndjson") sink.write(line.raw + "\n");
      if (line.type === "complete") result = line.data;
      onLeads(line.type === "complete" ? 0 : line.data.leads.length);
    }
  } catch (err) {
    // --ndjson prints the stream as it came, its error line included.
    if (format === "ndjson" && err instanceof ApiError && err.body.type === "error") sink.write(JSON.stringify(err.body) + "\n");
    throw err;
  }
  return result;
}

/** --complete: each page's enrichment retry, its leads replacing theirs by placeId (one export). */
async function completeEnrichment(ctx: CommandContext, client: ApiClient, spin: Spinner, pages: Pages): Promise<void> {
  for (const token of pages.retryTokens) {
    spin.update(`${pages.merged.size} leads · finishing website enrichment`);
    // The retry answers only the leads it covered: they replace theirs by placeId.
    const { leads: retried } = await client.call("leads.enrichmentRetry", { body: { token }, signal: ctx.io.signal });
    for (const lead of retried) pages.merged.set(lead.placeId, lead);
  }
  if (pages.last) pages.last = { ...pages.last, enrichmentRetryToken: null };
}

/** The merged leads in the chosen format (--ndjson has written its lines already). */
function writeLeads(ctx: CommandContext, sink: DataSink, options: SearchOptions, pages: Pages, last: SearchResult): SearchOutcome {
  const all = [...pages.merged.values()];
  // Pages merged: the warnings and request counts of every page, not only the last one's.
  const notes = { ...(pages.warnings.size ? { warnings: [...pages.warnings] } : {}), ...(Object.keys(pages.requests).length ? { requests: pages.requests } : {}) };
  if (options.format === "json") sink.write(JSON.stringify({ ...last, leads: all, ...notes }, null, 2) + "\n");
  else if (options.format === "csv") sink.write(leadsToCsv(all, last.center));
  else if (options.format === "plain") writeLeadTable(ctx, sink, all, last.center);
  return { last, leads: all, pagesRead: pages.pagesRead, retryTokens: options.complete ? [] : pages.retryTokens };
}
