import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { basename } from "node:path";
import { parse as parseCsvText } from "csv-parse/sync";
import { AppError, badRequest } from "../../../core/errors.js";
import { compiledWorkerFile, TaskThreads } from "../../../core/task-threads.js";
import { countLineBreaks, delimiterName, lastRecordEnd, lineBreakOf, readTextHead, recordEnd, sniffDelimiter, textStream, type CsvDelimiter } from "../../../core/text-file.js";
import type { Socials } from "../../../core/schemas/lead.js";
import { normaliseKey } from "../../../core/text.js";
import {
  BOUNDS,
  cleanCategories,
  cleanCountry,
  cleanEmail,
  cleanPhone,
  cleanRating,
  cleanSocial,
  cleanText,
  cleanWebsite,
  formatAddress,
  socialsOrNull,
} from "../../../core/lead-values.js";
import { insideBox } from "../../../core/geo.js";
import { undoFormulaDefusing } from "../../../core/spreadsheet-formula.js";
import type { ImportItem, ImportOptions, PlaceImporter, SourceInfo } from "../place-record.js";
import { dateFromFileName } from "./data-date.js";
import { decodeItems, encodeItems, type EncodedItems } from "./import-item-codec.js";
import { decodeInOrder } from "./pbf-decoder-threads.js";

/**
 * A user's own list of businesses, as CSV (header row) or NDJSON (one object per line),
 * in the Lead shape (docs/data.md). `name`, `lat` and `lng` are required; other
 * fields are optional and cleaned like every other source (an invalid website or phone is
 * dropped, not imported). A row that cannot be a place is skipped and reported by its
 * line number and field, and never stops the import.
 *
 * CSV columns (any case, `_` ignored: the `leads search --csv` export reads back): placeId, name, address, lat, lng, website, phone, email, rating,
 * categories (separated by `;` or `|`), linkedin, facebook, twitter, instagram, street,
 * housenumber, postcode, city, country, description, openingHours. NDJSON uses the same
 * keys, with `categories` as an array and socials either flat or as a `socials` object.
 */

const NETWORKS = ["linkedin", "facebook", "twitter", "instagram"] as const;

/** The columns a row is read from, by their name in any case ("Name", "LAT" from a spreadsheet). */
const COLUMNS = [
  "placeId", "name", "address", "lat", "lng", "website", "phone", "email", "rating", "categories", ...NETWORKS, "street", "housenumber",
  "postcode", "city", "country", "description", "businessSummary", "openingHours", "cuisine", "brand",
];
/** A header as compared: any case, without `_`, `-` or spaces (`place_id` and `business_summary` of the CLI's CSV export). */
const headerKey = (header: string) => header.trim().toLowerCase().replace(/[_\s-]+/g, "");
const COLUMN_BY_KEY = new Map(COLUMNS.map((c) => [headerKey(c), c]));
const REQUIRED_COLUMNS = ["name", "lat", "lng"];

const columnName = (header: string) => COLUMN_BY_KEY.get(headerKey(header)) ?? header.trim();

/** How a CSV file is read: its encoding and delimiter, judged on its head (core/text-file.ts). */
interface CsvLayout {
  encoding: string;
  delimiter: CsvDelimiter;
  /** Said to the user before the import (an encoding that was guessed). */
  notice?: string;
}

/**
 * A CSV's layout, and a 400 before anything is imported when it cannot give a single place:
 * binary data, a folder, or a header without name, lat and lng (the columns found are named,
 * so a wrong delimiter or a misnamed column is seen at once).
 */
function csvLayout(path: string, forced?: string): CsvLayout {
  const head = readTextHead(path, { forced });
  const delimiter = sniffDelimiter(head.text, { complete: head.whole });
  let header: string[] | undefined;
  try {
    // The first line with anything on it (csv-parse counts `to_line` over blank lines too).
    header = (parseCsvText(head.text.replace(/^(?:[ \t]*\r?\n)+/, ""), { delimiter, bom: true, skip_empty_lines: true, relax_column_count: true, to_line: 1 }) as string[][])[0]?.map((h) => h.trim());
  } catch (err) {
    throw badRequest(`${basename(path)} is not valid CSV: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!header?.some((h) => h !== "")) throw badRequest(`${basename(path)}: empty, no places to import`);
  const missing = REQUIRED_COLUMNS.filter((c) => !header.some((h) => columnName(h) === c));
  if (missing.length) {
    throw badRequest(
      `${basename(path)}: no row can be a place: each needs a name, lat and lng column, and ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing; ` +
        `columns found were ${header.map((h) => JSON.stringify(h)).join(", ")} (separated by ${delimiterName(delimiter)})`,
    );
  }
  return { encoding: head.encoding, delimiter, notice: head.notice };
}

class RowError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function text(row: Record<string, unknown>, key: string): string | null {
  const value = row[key];
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new RowError(key, `${key} must be a string`);
}

function coordinate(row: Record<string, unknown>, key: "lat" | "lng"): number {
  const raw = row[key];
  const value = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  const max = key === "lat" ? 90 : 180;
  if (raw === undefined || raw === null || raw === "") throw new RowError(key, `${key} is required`);
  if (!Number.isFinite(value) || Math.abs(value) > max) {
    throw new RowError(key, `${key} must be a number between -${max} and ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

function categoriesOf(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === "") return [];
  if (Array.isArray(raw)) {
    if (!raw.every((c) => typeof c === "string")) throw new RowError("categories", "categories must be an array of strings");
    return raw;
  }
  if (typeof raw === "string") return raw.split(/[;|]/);
  throw new RowError("categories", "categories must be an array of strings or a ;-separated string");
}

/** One row (already an object) → a place. Throws RowError naming the field. */
export function leadRowToPlace(row: Record<string, unknown>, sourceKey: string): ImportItem & { kind: "place" } {
  const name = cleanText(text(row, "name"), BOUNDS.name);
  if (!name) throw new RowError("name", "name is required");
  const lat = coordinate(row, "lat");
  const lng = coordinate(row, "lng");
  const nested = row.socials && typeof row.socials === "object" ? (row.socials as Record<string, unknown>) : {};
  const socials: Socials = {};
  for (const network of NETWORKS) {
    const value = cleanSocial(network, text(row, network) ?? text(nested, network));
    if (value) socials[network] = value;
  }
  // Named once: the place keeps these parts, and an address the row lacks is formatted from them.
  const located = {
    street: cleanText(text(row, "street")),
    housenumber: cleanText(text(row, "housenumber"), 40),
    postcode: cleanText(text(row, "postcode"), 20),
    city: cleanText(text(row, "city"), 100),
    country: cleanCountry(text(row, "country")),
    lat,
    lng,
  };
  const given = cleanText(text(row, "address"), BOUNDS.address);
  const key = cleanText(text(row, "placeId"), 400) ?? createHash("sha256").update(`${name}\u0000${lat}\u0000${lng}`).digest("hex").slice(0, 20);
  return {
    kind: "place",
    place: {
      placeId: `csv:${sourceKey}:${key}`,
      name,
      address: given ?? formatAddress(located),
      ...located,
      website: cleanWebsite(text(row, "website")),
      phone: cleanPhone(text(row, "phone")),
      email: cleanEmail(text(row, "email")),
      socials: socialsOrNull(socials),
      rating: cleanRating(row.rating),
      categories: cleanCategories(categoriesOf(row.categories)),
      cuisine: cleanText(text(row, "cuisine")),
      brand: cleanText(text(row, "brand")),
      description: cleanText(text(row, "description") ?? text(row, "businessSummary"), BOUNDS.description),
      openingHours: cleanText(text(row, "openingHours"), BOUNDS.openingHours),
      provenance: null,
    },
  };
}

/** The file name without extensions, as a key for place IDs ("my-dentists.csv" → "my-dentists"). */
export function sourceKeyOf(fileName: string): string {
  return normaliseKey(fileName.replace(/\.(csv|ndjson|jsonl)$/i, "")).replace(/[^a-z0-9._-]+/g, "-").slice(0, 80) || "file";
}

/** Bytes (NDJSON) or characters (CSV) of whole lines per chunk a thread parses: a few thousand rows. */
const CHUNK_BYTES = 1 << 20;
/** Most parsing threads: this thread (reading, then writing the places) keeps a core busy too. */
const MAX_PARSING_THREADS = 4;

/** A chunk of a list's rows for a parsing thread: whole lines (NDJSON as bytes; CSV as text, without its header). */
export type LeadChunkTask =
  | { format: "ndjson"; bytes: Uint8Array; firstLine: number; sourceKey: string }
  | { format: "csv"; text: string; firstLine: number; sourceKey: string; columns: string[]; delimiter: CsvDelimiter };

/** A chunk's rows as items (places, and skips of the rows that cannot be one), and each item's line. */
export interface LeadChunkResult {
  items: EncodedItems;
  lines: Float64Array;
}
/** A chunk that cannot be read (a CSV's broken quoting), as data: an error crosses threads without its class. */
export type LeadChunkFailure = { error: { message: string } };

/** What a parsing thread does with a chunk (`lead-rows-worker.ts`), or this thread without any. */
export function parseLeadChunk(task: LeadChunkTask): LeadChunkResult | LeadChunkFailure {
  const items: ImportItem[] = [];
  const lines: number[] = [];
  const skip = (line: number, detail: string) => {
    items.push({ kind: "skip", reason: "invalid row", detail });
    lines.push(line);
  };
  const row = (line: number, value: Record<string, unknown>) => {
    try {
      items.push(leadRowToPlace(value, task.sourceKey));
      lines.push(line);
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      skip(line, `line ${line}, field ${err.field}: ${err.message}`);
    }
  };
  if (task.format === "ndjson") {
    // The file's BOM goes (its first chunk); anything else is the line's own.
    const text = new TextDecoder("utf-8", { ignoreBOM: task.firstLine !== 1 }).decode(task.bytes);
    const rawLines = text.split("\n");
    if (rawLines[rawLines.length - 1] === "") rawLines.pop();
    rawLines.forEach((raw, i) => {
      const line = task.firstLine + i;
      if (raw.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        return skip(line, `line ${line}: not valid JSON`);
      }
      if (!value || typeof value !== "object" || Array.isArray(value)) skip(line, `line ${line}: must be a JSON object`);
      else row(line, value as Record<string, unknown>);
    });
  } else {
    let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
    try {
      records = parseCsvText(task.text, { columns: task.columns, delimiter: task.delimiter, info: true, skip_empty_lines: true, relax_column_count: true, trim: true });
    } catch (err) {
      // csv-parse counts lines from the chunk's start: said from the file's.
      const message = (err instanceof Error ? err.message : String(err)).replace(/\bline (\d+)/g, (_, n: string) => `line ${task.firstLine - 1 + Number(n)}`);
      return { error: { message } };
    }
    for (const { record, info } of records) {
      // Undo the formula defusing of the CLI's CSV export (core/spreadsheet-formula.ts), so a
      // `leads search --csv` file comes back as it was found.
      const value: Record<string, string> = {};
      for (const column in record) value[column] = undoFormulaDefusing(record[column]!);
      row(task.firstLine - 1 + info.lines, value);
    }
  }
  return { items: encodeItems(items), lines: Float64Array.from(lines) };
}

/** The buffers of a chunk's result, to move rather than copy. */
export function chunkTransferables(result: LeadChunkResult | LeadChunkFailure): ArrayBuffer[] {
  return "error" in result ? [] : [result.items.numbers.buffer as ArrayBuffer, result.lines.buffer as ArrayBuffer];
}


/** CSV or NDJSON rows in the Lead shape. */
export class LeadRowsImporter implements PlaceImporter {
  private readonly layout: CsvLayout | undefined;

  constructor(
    private readonly path: string,
    private readonly format: "csv" | "ndjson",
    encoding?: string,
    /** Parsing threads (default: one per core, at most 4; 0 parses inline), and bytes per chunk (default `CHUNK_BYTES`). */
    private readonly parsing: { threads?: number; chunkBytes?: number } = {},
  ) {
    this.layout = format === "csv" ? csvLayout(path, encoding) : undefined;
  }

  private get chunkBytes(): number {
    return this.parsing.chunkBytes ?? CHUNK_BYTES;
  }

  /** A guessed encoding, for the user to hear before the import. */
  get notice(): string | undefined {
    return this.layout?.notice;
  }

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    for await (const items of this.readBatches(options)) yield* items;
  }

  /**
   * The rows a chunk of whole lines at a time (`CHUNK_BYTES`), parsed and cleaned in
   * decoding threads (`lead-rows-worker.ts`, what the PBF importer does with its blocks:
   * one thread per core, at most 4; none on a single core, then inline), handed back in file
   * order in the compact form of `import-item-codec.ts`. This thread reads the file, splits
   * it at line ends (a CSV's outside quotes) and keeps what needs the whole file in order: a
   * place ID seen earlier is a duplicate, then the box.
   */
  async *readBatches(options: ImportOptions): AsyncGenerator<ImportItem[]> {
    const sourceKey = sourceKeyOf(basename(this.path));
    const count = this.parsing.threads ?? TaskThreads.defaultCount(MAX_PARSING_THREADS);
    const threads = count === 0 ? null : new TaskThreads<LeadChunkTask, LeadChunkResult | LeadChunkFailure>(compiledWorkerFile("./lead-rows-worker.js", import.meta.url), count, { what: "list parsing" });
    const parse = (task: LeadChunkTask): Promise<LeadChunkResult> =>
      (threads ? threads.run(task, task.format === "ndjson" ? [task.bytes.buffer as ArrayBuffer] : []) : Promise.resolve(task).then(parseLeadChunk)).then((result) => {
        if ("error" in result) throw badRequest(`${basename(this.path)} is not valid CSV: ${result.error.message}`);
        return result;
      });
    const chunks = this.layout ? this.csvChunks(sourceKey, options.signal) : this.ndjsonChunks(sourceKey, options.signal, options.onRead);
    const seen = new Set<string>();
    try {
      for await (const [, result] of decodeInOrder(chunks, parse, Math.max(2, count * 4))) {
        const { items, lines } = result!;
        const out: ImportItem[] = [];
        decodeItems(items).forEach((item, i) => {
          if (item.kind !== "place") return void out.push(item);
          if (seen.has(item.place.placeId)) {
            out.push({ kind: "skip", reason: "duplicate id", detail: `line ${lines[i]}, field placeId: ${item.place.placeId} appears earlier in the file` });
            return;
          }
          seen.add(item.place.placeId);
          out.push(insideBox(options.bbox, item.place.lat, item.place.lng) ? item : { kind: "skip", reason: "outside bbox" });
        });
        if (out.length > 0) yield out;
      }
    } finally {
      await threads?.close();
    }
  }

  /**
   * An NDJSON file in chunks of whole lines, as bytes (a line feed is never part of a
   * multi-byte UTF-8 character): the thread decodes them; the BOM of the file's start goes.
   */
  private async *ndjsonChunks(sourceKey: string, signal?: AbortSignal, onRead?: ImportOptions["onRead"]): AsyncGenerator<LeadChunkTask> {
    const totalBytes = statSync(this.path).size;
    let line = 1;
    let bytes = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const chunk = (data: Buffer): LeadChunkTask => {
      // A copy of its own, moved to the thread (`data` shares its memory with the next chunk's start).
      const task: LeadChunkTask = { format: "ndjson", bytes: new Uint8Array(data), firstLine: line, sourceKey };
      for (let at = data.indexOf(10); at >= 0; at = data.indexOf(10, at + 1)) line++;
      return task;
    };
    for await (const piece of createReadStream(this.path, { highWaterMark: this.chunkBytes })) {
      signal?.throwIfAborted();
      const data = piece as Buffer;
      bytes += data.length;
      onRead?.({ pass: 1, bytes, totalBytes });
      pending.push(data);
      pendingBytes += data.length;
      const end = data.lastIndexOf(10);
      if (pendingBytes < this.chunkBytes || end < 0) continue;
      // Whole lines up to this piece's last line feed go; the rest starts the next chunk.
      const whole = Buffer.concat(pending, pendingBytes);
      const cut = whole.length - (data.length - end - 1);
      yield chunk(whole.subarray(0, cut));
      pending = cut < whole.length ? [whole.subarray(cut)] : [];
      pendingBytes = whole.length - cut;
    }
    if (pendingBytes > 0) yield chunk(Buffer.concat(pending));
  }

  /**
   * A CSV file, decoded (its encoding: `csvLayout`), in chunks of whole records: cut after
   * a line break outside quotes (a quoted field may hold line breaks; `""` inside one keeps
   * the count even). The header is read here, once; the threads get the columns.
   */
  private async *csvChunks(sourceKey: string, signal?: AbortSignal): AsyncGenerator<LeadChunkTask> {
    const { encoding, delimiter } = this.layout!;
    const input = textStream(this.path, encoding);
    let columns: string[] | undefined;
    let lineBreak: number | undefined;
    let line = 1;
    let pending = "";
    const chunk = (text: string, breakChar: number): LeadChunkTask | undefined => {
      const firstLine = line;
      line += countLineBreaks(text, breakChar);
      if (!columns) {
        // Blank lines before the header, then its record (one line unless quoted).
        const blank = /^(?:[ \t]*(?:\r\n|\n|\r))*/.exec(text)![0].length;
        const end = recordEnd(text, blank, breakChar);
        const parsed = parseCsvText(text.slice(blank, end), { delimiter, bom: true, relax_column_count: true, trim: true }) as string[][];
        columns = (parsed[0] ?? []).map(columnName);
        const rest = text.slice(end);
        return rest === "" ? undefined : { format: "csv", text: rest, firstLine: firstLine + countLineBreaks(text.slice(0, end), breakChar), sourceKey, columns, delimiter };
      }
      return { format: "csv", text, firstLine, sourceKey, columns, delimiter };
    };
    try {
      for await (const piece of input) {
        signal?.throwIfAborted();
        pending += piece as string;
        if (pending.length < this.chunkBytes) continue;
        lineBreak ??= lineBreakOf(pending);
        const cut = lastRecordEnd(pending, lineBreak);
        if (cut <= 0) continue;
        const task = chunk(pending.slice(0, cut), lineBreak);
        pending = pending.slice(cut);
        if (task) yield task;
      }
      const last = pending === "" ? undefined : chunk(pending, lineBreak ?? lineBreakOf(pending));
      if (last) yield last;
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw badRequest(`${basename(this.path)} is not valid CSV: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      input.destroy();
    }
  }

  source(): SourceInfo {
    return {
      kind: this.format,
      dataDate: dateFromFileName(basename(this.path)),
      licence: "supplied by the user",
      attribution: "Supplied by the user; the user is responsible for its licence",
    };
  }
}
