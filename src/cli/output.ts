import Table from "cli-table3";
import type { CliIO } from "./io.js";

export interface Column<T> {
  header: string;
  value(row: T): string | number | boolean | null | undefined;
}

/** Colour only on a terminal and never with NO_COLOR (https://no-color.org). */
export function useColor(io: CliIO, env: NodeJS.ProcessEnv): boolean {
  return io.stderrIsTTY && !("NO_COLOR" in env && env.NO_COLOR !== "") && env.TERM !== "dumb";
}

export function paint(enabled: boolean) {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  return String(value);
}

/** Tab-separated values must not contain tabs or newlines of their own. */
function tsvCell(value: string | number | boolean | null | undefined): string {
  return cell(value).replace(/[\t\r\n]+/g, " ");
}

/** Columns of a terminal whose width is unknown. */
const DEFAULT_COLUMNS = 80;
/** A column is not squeezed below this (its header or its values, if shorter). */
const MIN_COLUMN = 6;

/** Display width of a cell's text: one a code point (a good approximation for the names and URLs shown here). */
function displayWidth(text: string): number {
  return [...text].length;
}

/** Table cells show one line: line breaks and tabs become spaces. */
function oneLine(value: string | number | boolean | null | undefined): string {
  return cell(value).replace(/[\t\r\n]+/g, " ");
}

/**
 * Content widths that fit `available` characters of content: while too wide, the widest
 * column gives up one character (its cells are then cut with "…"), never below MIN_COLUMN.
 */
export function fitColumnWidths(natural: readonly number[], available: number): number[] {
  const widths = [...natural];
  const floor = natural.map((w) => Math.min(w, MIN_COLUMN));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest]!--;
    total--;
  }
  return widths;
}

/**
 * GitHub CLI style: a table on a terminal, tab-separated rows (no header) when piped,
 * so `cut -f2` works. JSON is a separate, explicit choice (`--json`). The table fits the
 * terminal's width: one line per row, no rules between rows, long cells cut with "…".
 */
export function printRows<T>(io: CliIO, env: NodeJS.ProcessEnv, rows: readonly T[], columns: readonly Column<T>[]): void {
  if (!io.stdoutIsTTY) {
    for (const row of rows) io.stdout.write(columns.map((c) => tsvCell(c.value(row))).join("\t") + "\n");
    return;
  }
  const color = useColor({ ...io, stderrIsTTY: io.stdoutIsTTY }, env);
  const cells = rows.map((row) => columns.map((c) => oneLine(c.value(row))));
  const natural = columns.map((c, i) => Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i]!))));
  // Each column has a space of padding on both sides and a border after it, plus the first border.
  const available = (io.columns ?? DEFAULT_COLUMNS) - (3 * columns.length + 1);
  const widths = fitColumnWidths(natural, available);
  const table = new Table({
    head: columns.map((c) => c.header),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    truncate: "…",
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
    style: { head: color ? ["cyan"] : [], border: color ? ["grey"] : [] },
  });
  for (const row of cells) table.push(row);
  io.stdout.write(table.toString() + "\n");
}

/** `key: value` lines on a terminal, tab-separated pairs when piped. */
export function printRecord(io: CliIO, pairs: ReadonlyArray<[string, string | number | boolean | null | undefined]>): void {
  if (!io.stdoutIsTTY) {
    for (const [k, v] of pairs) io.stdout.write(`${k}\t${tsvCell(v)}\n`);
    return;
  }
  const width = Math.max(...pairs.map(([k]) => k.length));
  for (const [k, v] of pairs) io.stdout.write(`${(k + ":").padEnd(width + 1)} ${cell(v)}\n`);
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

const UNITS: Array<[string, number]> = [
  ["year", 365 * 24 * 3600_000],
  ["month", 30 * 24 * 3600_000],
  ["day", 24 * 3600_000],
  ["hour", 3600_000],
  ["minute", 60_000],
];

/** "3 hours ago", "in 5 days", "just now": the largest whole unit, as a person says it. */
export function relativeTime(iso: string, now: Date): string {
  const delta = new Date(iso).getTime() - now.getTime();
  const size = Math.abs(delta);
  for (const [unit, ms] of UNITS) {
    if (size >= ms) {
      const n = Math.floor(size / ms);
      const text = `${n} ${unit}${n === 1 ? "" : "s"}`;
      return delta < 0 ? `${text} ago` : `in ${text}`;
    }
  }
  return delta <= 0 ? "just now" : "in a moment";
}

/**
 * A timestamp in a table: relative on a terminal (people read "2 days ago" faster than
 * an ISO string), the exact ISO value when piped (scripts compare and sort it); `none`
 * when there is no value.
 */
export function timeCell(io: CliIO, now: Date, iso: string | null | undefined, none = ""): string {
  if (!iso) return none;
  return io.stdoutIsTTY ? relativeTime(iso, now) : iso;
}
