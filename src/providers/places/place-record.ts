import type { Socials } from "../../core/schemas/lead.js";

/**
 * One business as the importers hand it to the index: every value already cleaned to the
 * Lead bounds of service-api.md 2.3 (see `lead-values.ts`), so the read side never has
 * to clean again.
 */
export interface PlaceRecord {
  /** Stable per source: `osm:node:123`, `osm:way:456`, `overture:<id>`, `csv:<source>:<key>`. */
  placeId: string;
  name: string;
  /** One line, never empty (falls back to city, postcode, country, then coordinates). */
  address: string;
  street: string | null;
  housenumber: string | null;
  postcode: string | null;
  city: string | null;
  /** ISO 3166-1 alpha-2, upper case, or null when the data does not say. */
  country: string | null;
  lat: number;
  lng: number;
  website: string | null;
  phone: string | null;
  email: string | null;
  socials: Socials | null;
  rating: number | null;
  /** Readable labels a keyword search matches ("restaurant", "italian restaurant"). */
  categories: string[];
  /**
   * Category tag terms ("amenity=dentist", "cuisine=pizza", see `place-tags.ts`): OSM
   * places have them from their tags; left out, the import derives them from the labels
   * and the brand.
   */
  tags?: string[];
  cuisine: string | null;
  brand: string | null;
  description: string | null;
  openingHours: string | null;
  /** JSON array of upstream records (Overture `sources[]`), or null. */
  provenance: string | null;
}

/**
 * A named place that is no business but where people search (a city, a district, a
 * square): the geocoder resolves "Kamppi" or "Marienplatz" to it.
 */
export interface NamedPlace {
  /** `osm:node:123`, `osm:way:456`, `osm:relation:789`. */
  id: string;
  name: string;
  kind: NamedPlaceKind;
  lat: number;
  lng: number;
}
export type NamedPlaceKind = "city" | "district" | "square" | "locality";

/** What an importer yields: a place, a named place for the geocoder, or a record it could not use and why. */
export type ImportItem =
  | { kind: "place"; place: PlaceRecord }
  | { kind: "locality"; locality: NamedPlace }
  | { kind: "skip"; reason: SkipReason; detail?: string };

/**
 * Reasons a record is left out, counted in the import summary. `detail` (for rows of a
 * user's own CSV/NDJSON) names the row and the field.
 */
export type SkipReason =
  | "unnamed"
  | "infrastructure"
  | "no coordinates"
  | "outside bbox"
  | "duplicate id"
  | "closed"
  | "invalid row";

/** The file-level facts recorded with a source. */
export interface SourceInfo {
  kind: "osm" | "overture" | "csv" | "ndjson";
  /** YYYY-MM-DD (or YYYY-MM when only the month is known), or null. */
  dataDate: string | null;
  licence: string;
  attribution: string;
}

/** `--bbox minLng,minLat,maxLng,maxLat`. */
export interface BoundingBox {
  minLng: number;
  minLat: number;
  maxLng: number;
  maxLat: number;
}

export function insideBox(box: BoundingBox | undefined, lat: number, lng: number): boolean {
  if (!box) return true;
  return lat >= box.minLat && lat <= box.maxLat && lng >= box.minLng && lng <= box.maxLng;
}

export interface ImportOptions {
  bbox?: BoundingBox;
  signal?: AbortSignal;
}

/** One file format. `read` streams items; `source` is known once reading has finished. */
export interface PlaceImporter {
  read(options: ImportOptions): AsyncIterable<ImportItem>;
  /** Facts about the source; call after `read` has been consumed (some come from the data). */
  source(): SourceInfo;
}

export const OSM_LICENCE = "ODbL-1.0";
export const OSM_ATTRIBUTION =
  "© OpenStreetMap contributors, available under the Open Database License (ODbL) 1.0, https://www.openstreetmap.org/copyright";
export const OVERTURE_LICENCE = "CDLA-Permissive-2.0";
export const OVERTURE_ATTRIBUTION = "© Overture Maps Foundation, CDLA-Permissive-2.0 (https://overturemaps.org); each record's upstream dataset as named in its sources[]";
export const GEONAMES_ATTRIBUTION = "Contains GeoNames data (geonames.org), CC BY 4.0";
