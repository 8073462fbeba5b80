import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { defuseFormula, undoFormulaDefusing } from "../core/spreadsheet-formula.js";

/**
 * The one CSV layer of the CLI: every CSV the CLI writes (lead exports, `contacts export`)
 * goes through `csvText`, and `contacts import` reads them back through `readCsv`, so
 * what one writes the other reads, cell for cell.
 *
 * Spreadsheet formula defusing (CSV injection) is core/spreadsheet-formula.ts: the places
 * importer undoes it too.
 */
export type CsvCell = string | number | boolean | null | undefined;

/** A cell as written: empty for null/undefined, defused when it is text a spreadsheet would run. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return typeof value === "string" ? defuseFormula(text) : text;
}

/** What `csvCell` wrote, back to the value: one defusing quote dropped. */
export function csvValue(cell: string): string {
  return undoFormulaDefusing(cell);
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
