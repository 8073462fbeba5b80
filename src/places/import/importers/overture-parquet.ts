import { basename } from "node:path";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, type FileMetaData } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { badRequest } from "../../../core/errors.js";
import { insideBox, type BoundingBox } from "../../../core/geo.js";
import type { Socials } from "../../../core/schemas/lead.js";
import { overtureCategoryLabels } from "../../vocabulary/category-labels.js";
import {
  BOUNDS,
  cleanCategories,
  cleanCountry,
  cleanEmail,
  cleanPhone,
  cleanSocial,
  cleanText,
  cleanWebsite,
  formatAddress,
  socialNetworkOf,
  socialsOrNull,
  validCoordinates,
} from "../../../core/lead-values.js";
import {
  OVERTURE_ATTRIBUTION,
  OVERTURE_LICENCE,
  type ImportItem,
  type ImportOptions,
  type PlaceImporter,
  type SourceInfo,
} from "../place-record.js";
import { dateFromFileName } from "./data-date.js";

/** The columns we map (older and newer Overture schemas); absent ones are simply not read. */
const WANTED_COLUMNS = [
  "id", "geometry", "bbox", "names", "categories", "basic_category", "taxonomy", "operating_status",
  "websites", "socials", "emails", "phones", "brand", "addresses", "sources",
];

/** Places Overture marks as no longer operating: not leads. */
const CLOSED = new Set(["permanently_closed", "closed", "temporarily_closed"]);

type Row = Record<string, unknown>;

/**
 * A point from the `geometry` column: GeoJSON when the file has GeoParquet `geo`
 * metadata (hyparquet decodes it), raw WKB bytes when it has none (the pandas-written
 * sample). Only points: Overture places are points.
 */
export function pointFromGeometry(value: unknown): { lat: number; lng: number } | null {
  if (value instanceof Uint8Array) {
    if (value.length < 21) return null;
    const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
    const little = view.getUint8(0) === 1;
    const type = view.getUint32(1, little);
    // 1 = Point (ISO), 0x20000001 = Point with SRID (EWKB): the SRID takes 4 more bytes.
    if (type === 1) return { lng: view.getFloat64(5, little), lat: view.getFloat64(13, little) };
    if (type === 0x20000001 && value.length >= 25) return { lng: view.getFloat64(9, little), lat: view.getFloat64(17, little) };
    return null;
  }
  if (value && typeof value === "object" && (value as { type?: unknown }).type === "Point") {
    const [lng, lat] = (value as { coordinates: unknown[] }).coordinates;
    if (typeof lng === "number" && typeof lat === "number") return { lat, lng };
  }
  return null;
}

function asString(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  return null;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/** Column statistics of one row group for a bbox sub-column (`bbox.xmin` …), as numbers. */
function bboxStats(metadata: FileMetaData, group: number): { xmin?: number; xmax?: number; ymin?: number; ymax?: number } {
  const stats: Record<string, number> = {};
  for (const column of metadata.row_groups[group]?.columns ?? []) {
    const path = column.meta_data?.path_in_schema;
    if (!path || path.length !== 2 || path[0] !== "bbox") continue;
    const s = column.meta_data?.statistics;
    const min = Number(s?.min_value ?? s?.min);
    const max = Number(s?.max_value ?? s?.max);
    if (path[1] === "xmin" && Number.isFinite(min)) stats.xmin = min;
    if (path[1] === "ymin" && Number.isFinite(min)) stats.ymin = min;
    if (path[1] === "xmax" && Number.isFinite(max)) stats.xmax = max;
    if (path[1] === "ymax" && Number.isFinite(max)) stats.ymax = max;
  }
  return stats;
}

/** Whether row group statistics prove no place in it can be inside the box. */
export function rowGroupOutside(metadata: FileMetaData, group: number, box: BoundingBox): boolean {
  const s = bboxStats(metadata, group);
  // The smallest xmin in the group is east of the box, or the largest xmax west of it, …
  return (
    (s.xmin !== undefined && s.xmin > box.maxLng) ||
    (s.xmax !== undefined && s.xmax < box.minLng) ||
    (s.ymin !== undefined && s.ymin > box.maxLat) ||
    (s.ymax !== undefined && s.ymax < box.minLat)
  );
}

/** One Overture places row → a place, or why it is skipped. */
export function overtureRowToItem(row: Row): ImportItem {
  const id = asString(row.id);
  const point = pointFromGeometry(row.geometry) ?? pointFromBbox(row.bbox);
  if (!id || !point || !validCoordinates(point.lat, point.lng)) return { kind: "skip", reason: "no coordinates" };
  const name = cleanText(asString(field(row.names, "primary")), BOUNDS.name);
  if (!name) return { kind: "skip", reason: "unnamed" };
  const status = asString(row.operating_status);
  if (status && CLOSED.has(status)) return { kind: "skip", reason: "closed" };

  const address = asArray(row.addresses)[0];
  const street = cleanText(asString(field(address, "freeform")), 300);
  const city = cleanText(asString(field(address, "locality")), 100);
  const postcode = cleanText(asString(field(address, "postcode")), 20);
  const region = cleanText(asString(field(address, "region")), 60);
  const country = cleanCountry(asString(field(address, "country")));
  // Overture addresses are mostly North American: "123 Main St, Springfield, IL 62701".
  const cityLine = [city, [region, postcode].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  const formatted = [street, cityLine].filter(Boolean).join(", ");

  let website: string | null = null;
  const socials: Socials = {};
  for (const raw of asArray(row.websites)) {
    const url = asString(raw);
    const network = url ? socialNetworkOf(/^https?:/i.test(url) ? url : "https://" + url) : null;
    if (network) socials[network] ??= cleanSocial(network, url) ?? undefined;
    else website ??= cleanWebsite(url);
  }
  for (const raw of asArray(row.socials)) {
    const url = asString(raw);
    const network = url ? socialNetworkOf(url) : null;
    if (network) socials[network] ??= cleanSocial(network, url) ?? undefined;
  }
  for (const key of Object.keys(socials) as (keyof Socials)[]) if (socials[key] === undefined) delete socials[key];

  const categories = field(row, "categories");
  const taxonomy = row.taxonomy;
  const labels = overtureCategoryLabels(
    asString(field(categories, "primary")) ?? asString(field(taxonomy, "primary")) ?? asString(row.basic_category),
    [...asArray(field(categories, "alternate")), ...asArray(field(taxonomy, "alternates"))].map(asString),
  );

  return {
    kind: "place",
    place: {
      placeId: `overture:${id}`,
      name,
      address: formatted ? formatted.slice(0, BOUNDS.address) : formatAddress({ street: null, housenumber: null, postcode, city, country, ...point }),
      street,
      housenumber: null,
      postcode,
      city,
      country,
      lat: point.lat,
      lng: point.lng,
      website,
      phone: firstValid(row.phones, cleanPhone),
      email: firstValid(row.emails, cleanEmail),
      socials: socialsOrNull(socials),
      rating: null,
      categories: cleanCategories(labels),
      cuisine: null,
      brand: cleanText(asString(field(field(row.brand, "names"), "primary"))),
      description: null,
      openingHours: null,
      provenance: provenanceOf(row.sources),
    },
  };
}

/** Overture `sources[]` reduced to what attribution needs: dataset, record id, licence. */
function provenanceOf(sources: unknown): string | null {
  const kept = asArray(sources)
    .map((source) => {
      const dataset = asString(field(source, "dataset"));
      const recordId = asString(field(source, "record_id"));
      const license = asString(field(source, "license"));
      return dataset ? { dataset, ...(recordId ? { recordId } : {}), ...(license ? { license } : {}) } : null;
    })
    .filter((s) => s !== null);
  return kept.length ? JSON.stringify(kept.slice(0, 10)) : null;
}

function firstValid(values: unknown, clean: (value: string) => string | null): string | null {
  for (const raw of asArray(values)) {
    const value = asString(raw);
    const cleaned = value ? clean(value) : null;
    if (cleaned) return cleaned;
  }
  return null;
}

function pointFromBbox(bbox: unknown): { lat: number; lng: number } | null {
  const xmin = field(bbox, "xmin");
  const xmax = field(bbox, "xmax");
  const ymin = field(bbox, "ymin");
  const ymax = field(bbox, "ymax");
  if ([xmin, xmax, ymin, ymax].every((v) => typeof v === "number")) {
    return { lng: ((xmin as number) + (xmax as number)) / 2, lat: ((ymin as number) + (ymax as number)) / 2 };
  }
  return null;
}

/**
 * Overture places GeoParquet, read one row group at a time (memory stays at one group);
 * with `--bbox`, row groups whose `bbox` column statistics lie outside are not read at all.
 */
export class OvertureParquetImporter implements PlaceImporter {
  private latestUpdate: string | null = null;
  /** Row groups skipped by statistics alone (reported by tests and the bench). */
  skippedRowGroups = 0;

  constructor(private readonly path: string) {}

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    const fileName = basename(this.path);
    const file = await asyncBufferFromFile(this.path);
    let metadata: FileMetaData;
    try {
      metadata = await parquetMetadataAsync(file);
    } catch (err) {
      throw badRequest(`${fileName} is not a Parquet file (${err instanceof Error ? err.message : String(err)})`);
    }
    const present = new Set(metadata.schema.slice(1).map((s) => s.name));
    if (!present.has("id") || !present.has("names") || !(present.has("geometry") || present.has("bbox"))) {
      throw badRequest(`${fileName} does not look like Overture places: it needs the columns id, names and geometry (or bbox)`);
    }
    const columns = WANTED_COLUMNS.filter((c) => present.has(c));
    let groupStart = 0;
    for (let group = 0; group < metadata.row_groups.length; group++) {
      options.signal?.throwIfAborted();
      const rows = Number(metadata.row_groups[group]!.num_rows);
      const start = groupStart;
      groupStart += rows;
      if (options.bbox && rowGroupOutside(metadata, group, options.bbox)) {
        this.skippedRowGroups++;
        for (let i = 0; i < rows; i++) yield { kind: "skip", reason: "outside bbox" };
        continue;
      }
      const objects = (await parquetReadObjects({ file, metadata, compressors, columns, rowStart: start, rowEnd: start + rows, utf8: false })) as Row[];
      const items: ImportItem[] = [];
      for (const row of objects) {
        this.noteUpdateTime(row.sources);
        const item = overtureRowToItem(row);
        if (item.kind === "place" && !insideBox(options.bbox, item.place.lat, item.place.lng)) items.push({ kind: "skip", reason: "outside bbox" });
        else items.push(item);
      }
      yield* items;
    }
  }

  private noteUpdateTime(sources: unknown): void {
    for (const source of asArray(sources)) {
      const time = asString(field(source, "update_time"));
      if (time && /^\d{4}-\d{2}-\d{2}/.test(time) && (!this.latestUpdate || time > this.latestUpdate)) this.latestUpdate = time;
    }
  }

  /** The data date: the file name's date, else the newest `sources[].update_time` in the data. */
  source(): SourceInfo {
    return {
      kind: "overture",
      dataDate: dateFromFileName(basename(this.path)) ?? this.latestUpdate?.slice(0, 10) ?? null,
      licence: OVERTURE_LICENCE,
      attribution: OVERTURE_ATTRIBUTION,
    };
  }
}
