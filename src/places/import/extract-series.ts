import { FULL_DATE, SHORT_DATE } from "./importers/data-date.js";
import { importFormatOf } from "./importers/index.js";

/**
 * Which extracts are revisions of one another, by file name. Geofabrik publishes a
 * region as `germany-latest.osm.pbf` and as dated copies (`germany-251120.osm.pbf`);
 * people keep them as `germany-2025-11-20.osm.pbf` too. A source is its file name, so
 * without this a newer dated extract became a second source: its places moved to it one
 * by one (place IDs are global), and the places the region had lost stayed behind under
 * the old name forever.
 */

/** A date (the grammar of `dateFromFileName`) or "latest" at the end of a file name's stem: 2025-11-20, 20251120, 251120 (yymmdd), latest. */
const REVISION_SUFFIX = new RegExp(String.raw`[-_.](?:latest|${FULL_DATE}|${SHORT_DATE})$`, "i");

/**
 * The series a file name belongs to ("germany.osm.pbf" for germany-latest.osm.pbf,
 * germany-251120.osm.pbf and germany-2025-11-20.osm.pbf), or null when the name carries no
 * date nor "latest" (such a name is only ever the same source as itself).
 */
export function extractSeries(fileName: string): string | null {
  const format = importFormatOf(fileName);
  if (!format?.extract) return null;
  const extension = format.extension;
  const stem = fileName.slice(0, -extension.length);
  const series = stem.replace(REVISION_SUFFIX, "");
  if (series === stem || series === "") return null;
  return (series + extension).toLowerCase();
}
