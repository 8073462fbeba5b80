import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";

/**
 * The one CSV layer of the CLI: every CSV the CLI writes (lead exports, `contacts export`)
 * goes through `csvText`, and `contacts import` reads them back through `readCsv`, so
 * what one writes the other reads, cell for cell.
 *
 * Spreadsheet formula defusing (CSV injection): a spreadsheet runs a cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return as a formula, so such a cell gets a
 * leading `'`. Not a phone number or a negative number, though: a value made only of
 * digits, spaces and `+ ( ) . - /` cannot call a function or reference a cell, and
 * `+49 89 123456` must stay a phone number for whoever reads the file. A value that
 * already starts with quotes before such a character gets one more, so the reader's
 * "drop one quote" gives back exactly what was written (docs/cli.md, "CSV").
 */
export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^'*[=+\-@\t\r]/;
const HARMLESS = /^[0-9 ()+./-]*[0-9][0-9 ()./-]*$/;

/** Whether a spreadsheet would run this text as a formula (and it is not a phone or a number). */
function needsDefusing(text: string): boolean {
  return FORMULA_START.test(text) && !HARMLESS.test(text);
}

/** A cell as written: empty for null/undefined, defused when it is text a spreadsheet would run. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return typeof value === "string" && needsDefusing(text) ? `'${text}` : text;
}

/** What `csvCell` wrote, back to the value: one defusing quote dropped. */
export function csvValue(cell: string): string {
  return cell.startsWith("'") && needsDefusing(cell.slice(1)) ? cell.slice(1) : cell;
}

/** Rows as RFC 4180 CSV (each ending in a newline), every cell through `csvCell`. */
export function csvText(rows: ReadonlyArray<readonly CsvCell[]>): string {
  return stringify(rows.map((row) => row.map(csvCell)));
}

export class CsvFormatError extends Error {
  override name = "CsvFormatError";
}

/** CSV text as rows of values (a BOM skipped, empty lines skipped, defusing undone); `,` unless `delimiter` says otherwise. */
export function readCsv(text: string, { delimiter = "," }: { delimiter?: string } = {}): string[][] {
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, delimiter, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw new CsvFormatError(`not readable as CSV: ${(err as Error).message}`);
  }
  return rows.map((row) => row.map(csvValue));
}
