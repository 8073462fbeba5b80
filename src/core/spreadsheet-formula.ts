/**
 * Spreadsheet formula defusing (CSV injection): a spreadsheet runs a cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return as a formula, so such a cell gets a
 * leading `'`. Not a phone number or a negative number, though: a value made only of
 * digits, spaces and `+ ( ) . - /` cannot call a function or reference a cell, and
 * `+49 89 123456` must stay a phone number for whoever reads the file. A value that
 * already starts with quotes before such a character gets one more, so the reader's
 * "drop one quote" gives back exactly what was written (docs/cli.md, "CSV").
 *
 * In core because both sides need it: the CLI writes CSV (lead exports, `contacts export`)
 * and every importer of those files (`contacts import`, `places import`) undoes it.
 */

const FORMULA_START = /^'*[=+\-@\t\r]/;
const HARMLESS = /^[0-9 ()+./-]*[0-9][0-9 ()./-]*$/;

/** Whether a spreadsheet would run this text as a formula (and it is not a phone or a number). */
function needsDefusing(text: string): boolean {
  return FORMULA_START.test(text) && !HARMLESS.test(text);
}

/** Text as a CSV cell: with a leading `'` when a spreadsheet would run it. */
export function defuseFormula(text: string): string {
  return needsDefusing(text) ? `'${text}` : text;
}

/** What `defuseFormula` wrote, back to the text: one defusing quote dropped. */
export function undoFormulaDefusing(cell: string): string {
  return cell.startsWith("'") && needsDefusing(cell.slice(1)) ? cell.slice(1) : cell;
}
