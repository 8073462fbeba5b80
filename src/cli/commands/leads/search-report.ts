import { distanceKm } from "../../../core/geo.js";
import { DEFAULT_RADIUS_KM, type Lead, type SearchInput, type SearchResult } from "../../../core/schemas/lead.js";
import type { CommandContext } from "../../context.js";
import type { DataSink } from "../../data-sink.js";
import { enrichmentFailureSummary } from "../../enrichment-summary.js";
import { printRows } from "../../output.js";
import type { DataFormat } from "../../output-format.js";

/** What `leads search` wrote: the last page (its centre, quota, page token) and every lead of the pages read. */
export interface SearchOutcome {
  last: SearchResult;
  leads: Lead[];
  pagesRead: number;
  /** The retries still to run (none after --complete). */
  retryTokens: string[];
}

/** The lines on stderr after a search: warnings, requests spent, and (beside a table or CSV) where, how many and what is pending. */
export function reportSearch(
  ctx: CommandContext,
  options: { input: SearchInput; format: DataFormat; out?: string },
  notes: { warnings: Set<string>; requests: Record<string, number> },
  outcome: SearchOutcome | undefined,
): void {
  for (const warning of notes.warnings) ctx.warn(warning);
  const spent = Object.entries(notes.requests).filter(([, n]) => n > 0);
  if (spent.length) ctx.info(`requests to outside sources: ${spent.map(([source, n]) => `${source} ${n}`).join(", ")}`);
  if (!outcome) return;
  const { last, leads: found, pagesRead, retryTokens } = outcome;
  const { input } = options;
  if (last.didYouMean) {
    ctx.info(
      found.length === 0
        ? `no leads for ${JSON.stringify(input.keywords)}; did you mean ${JSON.stringify(last.didYouMean)}?`
        : `nothing matched ${JSON.stringify(input.keywords)} as typed; did you mean ${JSON.stringify(last.didYouMean)}? (showing its leads)`,
    );
  }
  for (const line of enrichmentFailureSummary(found)) ctx.info(line);
  if (options.format !== "csv" && options.format !== "plain") return;
  // What the location was understood as (--json and --ndjson carry it as resolvedLocation and center).
  ctx.info(locationLine(input, last));
  ctx.info(`${found.length} lead${found.length === 1 ? "" : "s"}${last.nextPageToken ? ` (${morePagesHint(pagesRead)})` : ""}`);
  if (last.quota) ctx.info(quotaLine(last.quota));
  if (options.out) ctx.info(`written to ${options.out}`);
  // The table, TSV and CSV do not carry the retry token (--json and --ndjson do).
  const pendingLine = pendingLeadsLine(found, retryTokens);
  if (pendingLine) ctx.info(pendingLine);
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

/** The plain output: a table on a terminal, tab-separated rows when piped. */
export function writeLeadTable(ctx: CommandContext, sink: DataSink, leads: Lead[], center: SearchResult["center"]): void {
  printRows(sink.asIO(), ctx.env, leads, [
    { header: "NAME", value: (l) => l.name },
    { header: "KM", value: (l) => distanceKm(center, l).toFixed(1) },
    { header: "CATEGORY", value: (l) => l.categories[0] ?? "" },
    { header: "PHONE", value: (l) => l.phone },
    { header: "WEBSITE", value: (l) => l.website },
    { header: "EMAIL", value: (l) => l.email },
  ]);
}
