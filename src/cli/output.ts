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

/**
 * GitHub CLI style: a table on a terminal, tab-separated rows (no header) when piped,
 * so `cut -f2` works. JSON is a separate, explicit choice (`--json`).
 */
export function printRows<T>(io: CliIO, env: NodeJS.ProcessEnv, rows: readonly T[], columns: readonly Column<T>[]): void {
  if (!io.stdoutIsTTY) {
    for (const row of rows) io.stdout.write(columns.map((c) => tsvCell(c.value(row))).join("\t") + "\n");
    return;
  }
  const color = useColor({ ...io, stderrIsTTY: io.stdoutIsTTY }, env);
  const table = new Table({
    head: columns.map((c) => c.header),
    style: { head: color ? ["cyan"] : [], border: color ? ["grey"] : [] },
    wordWrap: true,
  });
  for (const row of rows) table.push(columns.map((c) => cell(c.value(row))));
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
