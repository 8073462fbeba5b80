import { basename } from "node:path";
import { badRequest } from "../../../core/errors.js";
import { checkRegularFile } from "../../../core/text-file.js";
import type { PlaceImporter } from "../place-record.js";
import { LeadRowsImporter } from "./lead-rows.js";
import { OsmPbfImporter } from "./osm-pbf.js";
import { OsmXmlImporter } from "./osm-xml.js";
import { OvertureParquetImporter } from "./overture-parquet.js";

interface ImportFormat {
  /** The endings that name it, lower case. */
  extensions: readonly string[];
  /** How it is named to people (the accepted formats' list). */
  shown: string;
  /** A region's extract, whose dated copies are revisions of one source (`extract-series.ts`); a list is not. */
  extract: boolean;
  open(path: string, encoding: string | undefined): PlaceImporter;
}

/** Every format `places import` reads: the one list of extensions (the importer, the series of an extract and the error message read it). */
const IMPORT_FORMATS: readonly ImportFormat[] = [
  { extensions: [".osm.pbf", ".pbf"], shown: ".osm.pbf", extract: true, open: (path) => new OsmPbfImporter(path) },
  { extensions: [".osm", ".osm.bz2", ".osm.xml"], shown: ".osm, .osm.bz2", extract: true, open: (path) => new OsmXmlImporter(path) },
  { extensions: [".parquet", ".geoparquet"], shown: ".parquet (Overture places)", extract: true, open: (path) => new OvertureParquetImporter(path) },
  { extensions: [".csv"], shown: ".csv", extract: false, open: (path, encoding) => new LeadRowsImporter(path, "csv", encoding) },
  { extensions: [".ndjson", ".jsonl"], shown: ".ndjson/.jsonl", extract: false, open: (path) => new LeadRowsImporter(path, "ndjson") },
];

export const ACCEPTED_FORMATS = IMPORT_FORMATS.map((f) => f.shown).join(", ");

/** A file name's format and the extension that names it (as written in the name), or undefined. */
export function importFormatOf(fileName: string): { format: ImportFormat; extension: string; extract: boolean } | undefined {
  const lower = fileName.toLowerCase();
  let found: { format: ImportFormat; extension: string; extract: boolean } | undefined;
  for (const format of IMPORT_FORMATS) {
    for (const ending of format.extensions) {
      // The longest ending that fits: "x.osm.pbf" is .osm.pbf, not .pbf.
      if (lower.endsWith(ending) && ending.length > (found?.extension.length ?? 0)) {
        found = { format, extension: fileName.slice(-ending.length), extract: format.extract };
      }
    }
  }
  return found;
}

/** The importer for a file, chosen by its extension; `encoding` forces a CSV's text encoding. */
export function importerFor(path: string, { encoding }: { encoding?: string } = {}): PlaceImporter {
  checkRegularFile(path);
  const found = importFormatOf(basename(path));
  if (!found) throw badRequest(`${basename(path)}: unknown format; accepted: ${ACCEPTED_FORMATS}`);
  return found.format.open(path, encoding);
}
