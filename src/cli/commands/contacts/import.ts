import type { Command } from "commander";
import { isAppError } from "../../../core/errors.js";
import { CONTACT_LIMITS } from "../../../core/schemas/contact.js";
import { decodeText, readTextFile, type DecodedText } from "../../../core/text-file.js";
import { parseImport, ImportFormatError, type ImportRecord } from "../../contact-import.js";
import { runImport as importRecords } from "../../contact-import-run.js";
import type { CommandContext } from "../../context.js";
import { CliError, EXIT, UsageError } from "../../exit-codes.js";
import { encodingFlag, intFlag } from "../../flags.js";
import { readAllBytes } from "../../io.js";
import { printJson } from "../../output.js";
import { defineVerb } from "../shared.js";
import { collect, tagList } from "./contact-flags.js";

/** `outreach contacts import FILE`: what commander hands over. */
export interface ImportFlags {
  tag?: string[];
  strict?: boolean;
  batchSize: string;
  encoding?: string;
  json?: boolean;
}

export interface ImportOptions {
  /** A path, or - for stdin. */
  file: string;
  tags: string[];
  strict: boolean;
  /** Rows per API call at the most. */
  batchSize: number;
  encoding?: string;
  json?: boolean;
}

export function registerImport(contacts: Command, ctx: CommandContext): void {
  defineVerb(
    contacts,
    {
      name: "import",
      description: "create contacts from CSV or NDJSON/JSON: a contact CSV, or what `outreach leads search --csv/--ndjson/--json` prints",
      json: true,
      examples: [
        "outreach leads search --location Vaduz --keywords dentist --csv > dentists.csv && outreach contacts import dentists.csv --tag dentist",
        "outreach leads search --location Vaduz --keywords bakery --ndjson | outreach contacts import - --tag bakery",
        "outreach contacts import people.csv --strict",
      ],
    },
    (command) =>
      command
        .argument("<file>", "file to read, or - for stdin")
        .option("--tag <tag>", "add this tag to every imported contact (repeatable)", collect)
        .option("--strict", "check every row first and import nothing if one is invalid")
        .option("--batch-size <n>", `rows per API call at the most, 1 to ${CONTACT_LIMITS.importBatch} (smaller ones are sent while the rate is measured)`, String(CONTACT_LIMITS.importBatch))
        .option("--encoding <name>", "the file's text encoding (default: detected: a BOM, else UTF-8, else Windows-1252)"),
  ).action((file: string, flags: ImportFlags) => runImport(ctx, parseImportOptions(file, flags)));
}

export function parseImportOptions(file: string, flags: ImportFlags): ImportOptions {
  return {
    file,
    tags: tagList(flags.tag) ?? [],
    strict: Boolean(flags.strict),
    batchSize: intFlag("--batch-size", flags.batchSize, { min: 1, max: CONTACT_LIMITS.importBatch })!,
    encoding: encodingFlag(flags.encoding),
    json: flags.json,
  };
}

export async function runImport(ctx: CommandContext, options: ImportOptions): Promise<void> {
  const { file } = options;
  let records: ImportRecord[];
  try {
    const read = await readImportFile(ctx, file, options.encoding);
    records = parseImport(read.text, file === "-" ? "" : file);
  } catch (err) {
    if (err instanceof ImportFormatError) throw new UsageError(`${file === "-" ? "stdin" : file}: ${err.message}`);
    if (isAppError(err)) throw new UsageError(err.message);
    throw err;
  }
  const report = await importRecords(ctx, await ctx.client(), records, { tags: options.tags, strict: options.strict, batchSize: options.batchSize });
  if (options.json) printJson(ctx.io, report);
  if (report.interrupted) throw new CliError("interrupted", EXIT.interrupted);
  if (report.invalid > 0) throw new CliError(`${report.invalid} invalid row${report.invalid === 1 ? "" : "s"} not imported (see above)`, EXIT.usage);
  if (report.limitReached > 0) throw new CliError(`${report.limitReached} row${report.limitReached === 1 ? "" : "s"} not imported: the plan's contact limit was reached`, EXIT.auth);
}

/** The import's input as text: a file or stdin, its encoding detected or forced, a folder or binary data refused. */
async function readImportFile(ctx: CommandContext, file: string, encoding: string | undefined): Promise<DecodedText> {
  const read = file === "-" ? decodeText(await readAllBytes(ctx.io.stdin), "stdin", { forced: encoding }) : readTextFile(file, { forced: encoding });
  if (read.notice) ctx.warn(read.notice);
  if (read.text.trim() === "") throw new UsageError(`${file === "-" ? "stdin" : file}: empty, nothing to import`);
  return read;
}
