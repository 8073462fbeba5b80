import { extname } from "node:path";
import { mutuallyExclusive } from "./flags.js";

/**
 * One rule for the format of a command's data, shared by every command with `--out`
 * (`leads search` wrote tab-separated text to `x.csv` while `leads retry` wrote CSV):
 * an explicit `--csv`, `--ndjson` or `--json` wins; else the extension of `--out` chooses
 * (.csv → CSV, .ndjson/.jsonl → NDJSON, .json → JSON, .tsv/.txt or any other → the plain
 * tab-separated rows); else the plain output (a table on a terminal, TSV when piped).
 */
export type DataFormat = "plain" | "json" | "ndjson" | "csv";

export interface DataFormatFlags {
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
  out?: string;
}

const BY_EXTENSION: Record<string, DataFormat> = { ".csv": "csv", ".ndjson": "ndjson", ".jsonl": "ndjson", ".json": "json", ".tsv": "plain", ".txt": "plain" };

export function chooseDataFormat(flags: DataFormatFlags): DataFormat {
  mutuallyExclusive({ "--json": flags.json, "--ndjson": flags.ndjson, "--csv": flags.csv });
  const chosen = (["json", "ndjson", "csv"] as const).find((format) => flags[format]);
  if (chosen) return chosen;
  if (flags.out) return BY_EXTENSION[extname(flags.out).toLowerCase()] ?? "plain";
  return "plain";
}
