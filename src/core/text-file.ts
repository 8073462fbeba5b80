import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { pipeline, type Readable, type Transform } from "node:stream";
import iconv from "iconv-lite";
import { badRequest } from "./errors.js";

/**
 * How the files people bring are read: contact lists (`contacts import`) and their own
 * places (`places import x.csv`). Real files come from Excel, Numbers, LibreOffice and old
 * CRMs: UTF-8 with or without a BOM, UTF-16 from "Unicode text", Windows-1252 from most
 * European Excel installs, `;` as the separator wherever `,` is the decimal comma. So the
 * encoding is detected (BOM, then UTF-8 validity, else Windows-1252, which is said out
 * loud), the CSV delimiter is sniffed, and what is not text at all (a folder, a picture,
 * a zip) is refused with one line instead of being read as rows of `\u0000`.
 */

/** How a file's bytes were turned into text. */
export interface Decoding {
  /** The iconv-lite name of the encoding used: utf-8, utf-16le, utf-16be, windows-1252, or what `--encoding` named. */
  encoding: string;
  /** Set when the encoding was a guess the user should know about (a line for stderr). */
  notice?: string;
}

export interface DecodedText extends Decoding {
  text: string;
}

/** How much of a file the checks look at: its start is where a binary format shows itself. */
const BINARY_PROBE_CHARS = 1024;
/** More control characters than this share of the probe: not a text file. */
const MAX_CONTROL_SHARE = 0.1;

/** The encoding named by `--encoding`, checked; throws a 400 naming a few that work. */
export function checkEncodingName(name: string): string {
  const wanted = name.trim().toLowerCase();
  if (!iconv.encodingExists(wanted)) throw badRequest(`--encoding ${name}: unknown encoding (for example utf-8, windows-1252, latin1, utf-16le, macintosh)`);
  return wanted;
}

function bomEncoding(bytes: Uint8Array): { encoding: string; bomLength: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", bomLength: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", bomLength: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", bomLength: 2 };
  return undefined;
}

/** Whether the bytes are valid UTF-8; `partial` allows a character cut off at the end (a file's head). */
function isUtf8(bytes: Uint8Array, partial: boolean): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: partial });
    return true;
  } catch {
    return false;
  }
}

/**
 * Which encoding the bytes are in: the one forced, a BOM's, UTF-8 when they are valid
 * UTF-8, else Windows-1252 (a superset of Latin-1 that never fails to decode), with a
 * notice naming `source`. `partial`: the bytes are only the file's head.
 */
export function detectEncoding(bytes: Uint8Array, source: string, { forced, partial = false }: { forced?: string; partial?: boolean } = {}): Decoding {
  if (forced) return { encoding: checkEncodingName(forced) };
  const bom = bomEncoding(bytes);
  if (bom) return { encoding: bom.encoding };
  if (isUtf8(bytes, partial)) return { encoding: "utf-8" };
  return {
    encoding: "windows-1252",
    notice: `${source}: not UTF-8; read as Windows-1252 (Latin-1). If names look wrong, give the file's encoding with --encoding (for example --encoding macintosh)`,
  };
}

/** Text as iconv-lite decodes it (a BOM of that encoding dropped). */
export function decodeBytes(bytes: Uint8Array, encoding: string): string {
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding);
}

/** Whether decoded text is really binary data: a NUL, or a large share of control characters, in its start. */
export function looksBinary(text: string): boolean {
  const probe = text.slice(0, BINARY_PROBE_CHARS);
  if (probe.length === 0) return false;
  let controls = 0;
  for (const ch of probe) {
    if (ch === "\u0000") return true;
    // Tab, line feed, form feed and carriage return are text; other C0 controls, DEL and U+FFFD are not.
    if ((ch < " " && ch !== "\t" && ch !== "\n" && ch !== "\f" && ch !== "\r") || ch === "\u007f" || ch === "\ufffd") controls++;
  }
  return controls / probe.length > MAX_CONTROL_SHARE;
}

function binaryError(source: string) {
  return badRequest(`${source}: not a text file (it holds binary data); expected CSV, NDJSON or JSON text`);
}

/** Bytes as text: encoding detected (or forced), binary refused with a 400. `source` names the file in messages. */
export function decodeText(bytes: Uint8Array, source: string, options: { forced?: string } = {}): DecodedText {
  const decoding = detectEncoding(bytes, source, options);
  const text = decodeBytes(bytes, decoding.encoding);
  if (looksBinary(text)) throw binaryError(source);
  return { ...decoding, text };
}

/** A path that must be a readable regular file: a 400 for a folder or a missing file, in one line. */
export function checkRegularFile(path: string): void {
  const name = basename(path) || path;
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw badRequest(code === "ENOENT" || code === "ENOTDIR" ? `${path}: no such file` : `${path}: cannot be read (${code ?? (err as Error).message})`);
  }
  if (!isFile) throw badRequest(statSync(path).isDirectory() ? `${path}: is a folder; give a file in it` : `${name}: not a regular file`);
}

/** A whole text file, checked and decoded (see `decodeText`). */
export function readTextFile(path: string, options: { forced?: string } = {}): DecodedText {
  checkRegularFile(path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw badRequest(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return decodeText(bytes, path, options);
}

/** How far into a large file the head reaches: enough for the delimiter, the encoding and the header. */
const HEAD_BYTES = 256 * 1024;

/**
 * The start of a file as text, for files too large to read whole (places CSVs): the
 * encoding is judged on the head, the caller then streams the rest in that encoding.
 */
export function readTextHead(path: string, options: { forced?: string } = {}): DecodedText & { whole: boolean } {
  checkRegularFile(path);
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const length = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    const whole = length < HEAD_BYTES;
    const bytes = buffer.subarray(0, length);
    const decoding = detectEncoding(bytes, path, { ...options, partial: !whole });
    const text = decodeBytes(bytes, decoding.encoding);
    if (looksBinary(text)) throw binaryError(path);
    return { ...decoding, text, whole };
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's text as a stream of strings in `encoding` (its BOM dropped), for files read as
 * they come. Destroying it closes the file too (pipeline ties the two together).
 */
export function textStream(path: string, encoding: string): Readable {
  // The pipeline's own error reaches the returned stream's readers; nothing to do here.
  return pipeline(createReadStream(path), iconv.decodeStream(encoding) as unknown as Transform, () => {});
}

export const CSV_DELIMITERS = [",", ";", "\t", "|"] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** How many lines the sniffer compares. */
const SNIFF_LINES = 20;

/**
 * Fields per record for each candidate delimiter over the first records, quotes respected
 * (a delimiter or a line break inside "…" does not count). The last record is left out
 * when the text is only a head (it may be cut off).
 */
function fieldCounts(text: string, delimiter: string, complete: boolean): number[] {
  const counts: number[] = [];
  let fields = 1;
  let quoted = false;
  let fieldStart = true;
  let sawContent = false;
  for (let i = 0; i < text.length && counts.length < SNIFF_LINES; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') i++;
        else quoted = false;
      }
      continue;
    }
    if (ch === '"' && fieldStart) {
      quoted = true;
      fieldStart = false;
      sawContent = true;
    } else if (ch === delimiter) {
      fields++;
      fieldStart = true;
      sawContent = true;
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      if (sawContent) counts.push(fields);
      fields = 1;
      fieldStart = true;
      sawContent = false;
    } else {
      if (ch !== " ") fieldStart = false;
      sawContent = true;
    }
  }
  if (sawContent && complete && counts.length < SNIFF_LINES) counts.push(fields);
  return counts;
}

/**
 * The CSV's delimiter: among `,` `;` tab `|`, the one that splits the header into more
 * than one field and gives the same number of fields on the most records after it (ties:
 * more fields, then the order above). A single-column file is `,`.
 */
export function sniffDelimiter(text: string, { complete = true }: { complete?: boolean } = {}): CsvDelimiter {
  let best: { delimiter: CsvDelimiter; consistent: number; fields: number } = { delimiter: ",", consistent: -1, fields: 1 };
  for (const delimiter of CSV_DELIMITERS) {
    const counts = fieldCounts(text, delimiter, complete);
    const header = counts[0] ?? 1;
    if (header < 2) continue;
    const consistent = counts.filter((c) => c === header).length;
    if (consistent > best.consistent || (consistent === best.consistent && header > best.fields)) best = { delimiter, consistent, fields: header };
  }
  return best.delimiter;
}

/** A delimiter as a message names it. */
export function delimiterName(delimiter: string): string {
  return delimiter === "\t" ? "tab" : `"${delimiter}"`;
}

/*
 * CSV record boundaries, for reading a CSV in chunks of whole records (the places list
 * importer's parsing threads): a record ends at a line break outside quotes (a quoted field
 * may hold line breaks; `""` inside one keeps the count of quotes even).
 */

/**
 * The character a CSV's lines end with, as csv-parse detects it: a line feed (also of
 * CRLF), or a carriage return alone (old Mac exports), judged on the text's start.
 */
export function lineBreakOf(text: string): number {
  return text.includes("\n") || !text.includes("\r") ? 10 : 13;
}

/** Lines ended in `text` (their number, as csv-parse counts the file's lines). */
export function countLineBreaks(text: string, lineBreak: number): number {
  const char = String.fromCharCode(lineBreak);
  let n = 0;
  for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) n++;
  return n;
}

/** Where the CSV record starting at `from` ends: after its first line break outside quotes (the text's end if none). */
export function recordEnd(text: string, from: number, lineBreak: number): number {
  let quoted = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (c === lineBreak && !quoted) return i + 1;
  }
  return text.length;
}

/** After the last line break outside quotes in `text` (which starts outside quotes), or 0. */
export function lastRecordEnd(text: string, lineBreak: number): number {
  let quoted = false;
  let end = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (c === lineBreak && !quoted) end = i + 1;
  }
  return end;
}
