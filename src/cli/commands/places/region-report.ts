import type { DownloadProgress, RegionDownloadResult } from "../../../places/index.js";
import { isAppError } from "../../../core/errors.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT } from "../../exit-codes.js";

/** What `places download` and `places update` say about a region's extract. */

/** A service's refusal (unknown region, a failed download) is the user's to fix: exit 2 with its message. */
export async function withUsageErrors<T>(work: () => Promise<T>): Promise<T> {
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

export function reportDownload(ctx: CommandContext, result: RegionDownloadResult): void {
  const { record } = result;
  const how = !result.downloaded ? "already in the cache, unchanged" : result.resumed ? "downloaded (resumed)" : "downloaded";
  ctx.info(`${record.id}: ${how}, ${megabytes(record.bytes)} MB, MD5 ${record.md5} checked → ${record.file}`);
}

