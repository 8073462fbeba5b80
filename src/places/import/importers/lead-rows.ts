import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import { parse as parseCsv } from "csv-parse";
import { parse as parseCsvText } from "csv-parse/sync";
import { badRequest } from "../../../core/errors.js";
import { delimiterName, readTextHead, sniffDelimiter, textStream, type CsvDelimiter } from "../../../core/text-file.js";
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
  const street = cleanText(text(row, "street"));
  const housenumber = cleanText(text(row, "housenumber"), 40);
  const postcode = cleanText(text(row, "postcode"), 20);
  const city = cleanText(text(row, "city"), 100);
  const country = cleanCountry(text(row, "country"));
  const given = cleanText(text(row, "address"), BOUNDS.address);
  const key = cleanText(text(row, "placeId"), 400) ?? createHash("sha256").update(`${name}\u0000${lat}\u0000${lng}`).digest("hex").slice(0, 20);
  return {
    kind: "place",
    place: {
      placeId: `csv:${sourceKey}:${key}`,
      name,
      address: given ?? formatAddress({ street, housenumber, postcode, city, country, lat, lng }),
      street,
      housenumber,
      postcode,
      city,
      country,
      lat,
      lng,
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

/** CSV or NDJSON rows in the Lead shape. */
export class LeadRowsImporter implements PlaceImporter {
  private readonly layout: CsvLayout | undefined;

  constructor(
    private readonly path: string,
    private readonly format: "csv" | "ndjson",
    encoding?: string,
  ) {
    this.layout = format === "csv" ? csvLayout(path, encoding) : undefined;
  }

  /** A guessed encoding, for the user to hear before the import. */
  get notice(): string | undefined {
    return this.layout?.notice;
  }

  private async *rows(signal?: AbortSignal): AsyncGenerator<{ line: number; row: Record<string, unknown> } | { line: number; error: RowError }> {
    const fileName = basename(this.path);
    if (this.layout) {
      const { encoding, delimiter } = this.layout;
      const input = textStream(this.path, encoding);
      const parser = input.pipe(
        parseCsv({ columns: (header: string[]) => header.map(columnName), delimiter, bom: true, info: true, skip_empty_lines: true, relax_column_count: true, trim: true }),
      );
      try {
        for await (const record of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
          // Undo the formula defusing of the CLI's CSV export (core/spreadsheet-formula.ts), so a
          // `leads search --csv` file comes back as it was found.
          const row = Object.fromEntries(Object.entries(record.record).map(([column, cell]) => [column, undoFormulaDefusing(cell)]));
          yield { line: record.info.lines, row };
        }
      } catch (err) {
        throw badRequest(`${fileName} is not valid CSV: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        input.destroy();
      }
      return;
    }
    const input = createReadStream(this.path, { encoding: "utf8" });
    const lines = createInterface({ input, crlfDelay: Infinity });
    let line = 0;
    try {
      for await (const raw of lines) {
        signal?.throwIfAborted();
        line++;
        if (raw.trim() === "") continue;
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          yield { line, error: new RowError("(line)", "not valid JSON") };
          continue;
        }
        if (!value || typeof value !== "object" || Array.isArray(value)) yield { line, error: new RowError("(line)", "must be a JSON object") };
        else yield { line, row: value as Record<string, unknown> };
      }
    } finally {
      lines.close();
      input.destroy();
    }
  }

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    const sourceKey = sourceKeyOf(basename(this.path));
    const seen = new Set<string>();
    for await (const entry of this.rows(options.signal)) {
      if ("error" in entry) {
        yield { kind: "skip", reason: "invalid row", detail: `line ${entry.line}: ${entry.error.message}` };
        continue;
      }
      let item: ImportItem & { kind: "place" };
      try {
        item = leadRowToPlace(entry.row, sourceKey);
      } catch (err) {
        if (!(err instanceof RowError)) throw err;
        yield { kind: "skip", reason: "invalid row", detail: `line ${entry.line}, field ${err.field}: ${err.message}` };
        continue;
      }
      if (seen.has(item.place.placeId)) {
        yield { kind: "skip", reason: "duplicate id", detail: `line ${entry.line}, field placeId: ${item.place.placeId} appears earlier in the file` };
        continue;
      }
      seen.add(item.place.placeId);
      if (!insideBox(options.bbox, item.place.lat, item.place.lng)) yield { kind: "skip", reason: "outside bbox" };
      else yield item;
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
