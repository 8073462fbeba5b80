import type { BoundingBox } from "../../core/geo.js";
import type { Socials } from "../../core/schemas/lead.js";
import type { PlaceWrite, SourceKind } from "../store/places.js";

/**
 * One business as the importers hand it to the index: every value already cleaned by the
 * rules of `core/lead-values.ts` (docs/api.md, "Lead values"). The read side applies the
 * same rules again (`toLead`), which changes nothing for a value stored this way.
 */
export type PlaceRecord = Omit<PlaceWrite, "socials" | "categories" | "categoryText" | "categoryTags"> & {
  socials: Socials | null;
  /** Readable labels a keyword search matches ("restaurant", "italian restaurant"). */
  categories: string[];
  /**
   * Category tag terms ("amenity=dentist", "cuisine=pizza", see `place-tags.ts`): OSM
   * places have them from their tags; left out, the import derives them from the labels
   * and the brand.
   */
  tags?: string[];
};

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
  kind: SourceKind;
  /** YYYY-MM-DD (or YYYY-MM when only the month is known), or null. */
  dataDate: string | null;
  licence: string;
  attribution: string;
}

export interface ImportOptions {
  /** `--bbox`: keep only places inside it. */
  bbox?: BoundingBox;
  signal?: AbortSignal;
  /** How far reading has got, after each block (formats that read in blocks: PBF). */
  onRead?: (progress: ReadProgress) => void;
}

/** Bytes of the file read so far in the current pass over it (a PBF import makes up to three). */
export interface ReadProgress {
  /** 1: businesses and named places; 2: the node lists of relations' ways; 3: the positions of the nodes ways need. */
  pass: number;
  bytes: number;
  totalBytes: number;
}

/** One file format. `read` streams items; `source` is known once reading has finished. */
export interface PlaceImporter {
  read(options: ImportOptions): AsyncIterable<ImportItem>;
  /** The same items in arrays (one per block of the file), where the format has them so: one await per block instead of per item. */
  readBatches?(options: ImportOptions): AsyncIterable<ImportItem[]>;
  /** Facts about the source; call after `read` has been consumed (some come from the data). */
  source(): SourceInfo;
  /** What the user should hear before the import (a CSV whose encoding was guessed). */
  readonly notice?: string;
}

export const OSM_LICENCE = "ODbL-1.0";
export const OSM_ATTRIBUTION =
  "© OpenStreetMap contributors, available under the Open Database License (ODbL) 1.0, https://www.openstreetmap.org/copyright";
export const OVERTURE_LICENCE = "CDLA-Permissive-2.0";
export const OVERTURE_ATTRIBUTION = "© Overture Maps Foundation, CDLA-Permissive-2.0 (https://overturemaps.org); each record's upstream dataset as named in its sources[]";
export const GEONAMES_ATTRIBUTION = "Contains GeoNames data (geonames.org), CC BY 4.0";
