import { basename } from "node:path";
import { badRequest } from "../../../core/errors.js";
import { checkRegularFile } from "../../../core/text-file.js";
import type { PlaceImporter } from "../place-record.js";
import { LeadRowsImporter } from "./lead-rows.js";
import { OsmPbfImporter } from "./osm-pbf.js";
import { OsmXmlImporter } from "./osm-xml.js";
import { OvertureParquetImporter } from "./overture-parquet.js";

export const ACCEPTED_FORMATS = ".osm.pbf, .osm, .osm.bz2, .parquet (Overture places), .csv, .ndjson/.jsonl";

/** The importer for a file, chosen by its extension; `encoding` forces a CSV's text encoding. */
export function importerFor(path: string, { encoding }: { encoding?: string } = {}): PlaceImporter {
  const name = basename(path).toLowerCase();
  checkRegularFile(path);
  if (name.endsWith(".osm.pbf") || name.endsWith(".pbf")) return new OsmPbfImporter(path);
  if (name.endsWith(".osm") || name.endsWith(".osm.bz2") || name.endsWith(".osm.xml")) return new OsmXmlImporter(path);
  if (name.endsWith(".parquet") || name.endsWith(".geoparquet")) return new OvertureParquetImporter(path);
  if (name.endsWith(".csv")) return new LeadRowsImporter(path, "csv", encoding);
  if (name.endsWith(".ndjson") || name.endsWith(".jsonl")) return new LeadRowsImporter(path, "ndjson");
  throw badRequest(`${basename(path)}: unknown format; accepted: ${ACCEPTED_FORMATS}`);
}
