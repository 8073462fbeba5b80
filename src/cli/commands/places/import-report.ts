import type { ImportProgress, ImportSummary } from "../../../places/index.js";
import type { CommandContext } from "../../context.js";
import { EXIT, exitCodeFor } from "../../exit-codes.js";
import { printRecord } from "../../output.js";
import type { progressSpinner } from "../../progress-spinner.js";

/** What `places import` (and `places download --import`) say about a file: its progress, its summary, why nothing came of it. */

/**
 * Why a user's own list (CSV, NDJSON) gave no place at all, when it did: "added 0" and exit 0
 * would read as success. Rows left out by --bbox are what was asked for, not a failure.
 */
export function noPlacesReason(s: ImportSummary): string | undefined {
  if (s.unchangedFile || s.total > 0 || (s.source.kind !== "csv" && s.source.kind !== "ndjson")) return undefined;
  const rejected = s.skipped["invalid row"] ?? 0;
  if (rejected > 0) return `no row became a place: all ${rejected.toLocaleString("en")} rows were rejected (${s.rejectedRows[0] ?? "see above"}${rejected > 1 ? ", …" : ""})`;
  if (Object.keys(s.skipped).length === 0) return "the file has no rows: nothing to import";
  return undefined;
}

export function printSummary(ctx: CommandContext, s: ImportSummary): void {
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

/** A spinner's end when its command fails: its failure line, but none when the user pressed Ctrl-C (main says "interrupted"). */
export function stopSpinner(spinner: ReturnType<typeof progressSpinner>, err: unknown, failure: string): void {
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
