import Table from "cli-table3";
import type { CliIO } from "./io.js";

/**
 * What a column holds, which decides how it gives way when the table is wider than the
 * terminal (the GitHub CLI's rule: what people copy stays whole):
 * - `id`: never cut (`ct_ThCl0fFq…` cannot be copied);
 * - `data`: emails, URLs, phone numbers: cut only when the free text is already as short as it goes;
 * - `text`: names, descriptions, statuses: the widest is shortened first.
 * Left out, it is read from the values (see `columnKind`).
 */
export type ColumnKind = "id" | "data" | "text";

export interface Column<T> {
  header: string;
  value(row: T): string | number | boolean | null | undefined;
  kind?: ColumnKind;
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
/** Free text keeps this much while data is cut (when data must be cut at all). */
const READABLE_TEXT = 16;
/** Spaces between two columns. */
const GAP = "  ";

/** Display width of a cell's text: one a code point (a good approximation for the names and URLs shown here). */
function displayWidth(text: string): number {
  return [...text].length;
}

/** Table cells show one line: line breaks and tabs become spaces. */
function oneLine(value: string | number | boolean | null | undefined): string {
  return cell(value).replace(/[\t\r\n]+/g, " ");
}

/** Our ids (`ct_…`, `dom_…`, key and token prefixes) and place ids (`osm:node:123`). */
const ID = /^(?:[a-z]+_[0-9A-Za-z_]{6,}|[a-z]+:[a-z]+:[0-9A-Za-z_-]+)$/;
/** Emails, URLs, host names and phone numbers: what people copy out of a table. */
const DATA = /^(?:[^\s@]+@[^\s@]+|[a-z][a-z0-9+.-]*:\/\/\S+|(?:[a-z0-9-]+\.)+[a-z]{2,}\S*|\+?[0-9][0-9 ().\/-]{5,})$/i;

/** A column's kind from its values when the command did not say: ids if every value is one, data likewise, else text. */
export function columnKind(values: readonly string[]): ColumnKind {
  const present = values.filter((v) => v !== "");
  if (present.length === 0) return "text";
  if (present.every((v) => ID.test(v))) return "id";
  if (present.every((v) => DATA.test(v))) return "data";
  return "text";
}

/**
 * Content widths that fit `available` characters: while too wide, the widest column that may
 * still give way loses one character (its cells are then cut with "…"), never below
 * MIN_COLUMN or its header's width (nor its natural width, if less). Ids never give way: a
 * table that cannot fit without cutting one is left wider than the terminal (which wraps
 * it), as the GitHub CLI does. Free text gives way first; when the data (emails, URLs) fits
 * whole beside free text at its floor, only free text gives way. When data must be cut
 * anyway, free text keeps READABLE_TEXT characters until the data is at its floor, so
 * neither becomes unreadable.
 */
export function fitColumnWidths(
  natural: readonly number[],
  available: number,
  kinds: readonly ColumnKind[] = natural.map(() => "text"),
  headers: readonly number[] = natural.map(() => 0),
): number[] {
  const widths = [...natural];
  // A header stays whole where it can: a column's floor is its header's width if that is more.
  const floor = (i: number, limit = MIN_COLUMN) => Math.min(natural[i]!, Math.max(limit, headers[i]!));
  let total = widths.reduce((a, b) => a + b, 0);
  const textAtFloor = natural.reduce((sum, w, i) => sum + (kinds[i] === "text" ? floor(i) : w), 0);
  const phases: Array<[ColumnKind, number]> =
    textAtFloor <= available ? [["text", MIN_COLUMN]] : [["text", READABLE_TEXT], ["data", MIN_COLUMN], ["text", MIN_COLUMN]];
  for (const [kind, limit] of phases) {
    while (total > available) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        if (kinds[i] === kind && widths[i]! > floor(i, limit) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      }
      if (widest < 0) break;
      widths[widest]!--;
      total--;
    }
  }
  return widths;
}

/** `text` in `width` characters: cut with "…" when longer, padded with spaces when shorter. */
function fitCell(text: string, width: number): string {
  const chars = [...text];
  if (chars.length > width) return chars.slice(0, Math.max(0, width - 1)).join("") + "…";
  return text + " ".repeat(width - chars.length);
}

/**
 * GitHub CLI style: a table on a terminal, tab-separated rows (no header) when piped,
 * so `cut -f2` works. JSON is a separate, explicit choice (`--json`). On a terminal: a
 * header and one line per row, columns apart by two spaces, no borders; when the table is
 * wider than the terminal, the widest free text is cut with "…" first and ids never
 * (fitColumnWidths).
 */
export function printRows<T>(io: CliIO, env: NodeJS.ProcessEnv, rows: readonly T[], columns: readonly Column<T>[]): void {
  if (!io.stdoutIsTTY) {
    for (const row of rows) io.stdout.write(columns.map((c) => tsvCell(c.value(row))).join("\t") + "\n");
    return;
  }
  const style = paint(useColor({ ...io, stderrIsTTY: io.stdoutIsTTY }, env));
  const cells = rows.map((row) => columns.map((c) => oneLine(c.value(row))));
  const headers = columns.map((c) => displayWidth(c.header));
  const natural = columns.map((_, i) => Math.max(headers[i]!, ...cells.map((r) => displayWidth(r[i]!))));
  const kinds = columns.map((c, i) => c.kind ?? columnKind(cells.map((r) => r[i]!)));
  const available = (io.columns ?? DEFAULT_COLUMNS) - GAP.length * (columns.length - 1);
  const widths = fitColumnWidths(natural, available, kinds, headers);
  // cli-table3 lays the cells out (borderless, GAP between columns); the cells arrive already
  // cut to the widths fitColumnWidths chose, so its own truncation never applies.
  const table = new Table({
    chars: BORDERLESS,
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0, compact: true },
    colWidths: widths,
    wordWrap: false,
  });
  table.push(columns.map((c, i) => style.bold(fitCell(c.header, widths[i]!))));
  for (const row of cells) table.push(row.map((text, i) => fitCell(text, widths[i]!)));
  for (const line of table.toString().split("\n")) io.stdout.write(line.trimEnd() + "\n");
}

/** cli-table3's border characters for the GitHub CLI's look: none, two spaces between columns. */
const BORDERLESS = {
  top: "", "top-mid": "", "top-left": "", "top-right": "",
  bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "",
  left: "", "left-mid": "", mid: "", "mid-mid": "",
  right: "", "right-mid": "", middle: GAP,
};

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

/** "3 hours ago", "in 5 days", "yesterday", "just now": the largest whole unit, as a person says it. */
export function relativeTime(iso: string, now: Date): string {
  const delta = new Date(iso).getTime() - now.getTime();
  const size = Math.abs(delta);
  for (const [unit, ms] of UNITS) {
    if (size >= ms) {
      const n = Math.floor(size / ms);
      if (unit === "day" && n === 1) return delta < 0 ? "yesterday" : "tomorrow";
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
