import { basename } from "node:path";
import { parse as parsePrimitiveBlock, type OSMOptions } from "osm-pbf-parser-node";
import { KEPT_TAG_KEYS } from "../osm-tags.js";
import { OSM_ATTRIBUTION, OSM_LICENCE, type ImportItem, type ImportOptions, type PlaceImporter, type SourceInfo } from "../place-record.js";
import { dateFromEpochSeconds, dateFromFileName } from "./data-date.js";
import { OsmElementCollector } from "./osm-elements.js";
import { readNodeCoordinates, readPbfBlocks } from "./pbf-blocks.js";

interface ParsedNode {
  type: "node";
  id: number;
  lat: number;
  lon: number;
  tags?: Record<string, string>;
}
interface ParsedWay {
  type: "way";
  id: number;
  refs: number[];
  tags?: Record<string, string>;
}
type Parsed = ParsedNode | ParsedWay | { type: "relation" };

/**
 * osm-pbf-parser-node's `parse` reads its second argument as the per-type tag filter
 * when it is not an OSMTransform: keep only the tags we map, skip relations' tags.
 */
const FIRST_PASS_TAGS = { node: KEPT_TAG_KEYS, way: KEPT_TAG_KEYS, relation: false } as unknown as OSMOptions;

/**
 * `.osm.pbf` (streaming, two passes: businesses, then the coordinates of business ways'
 * nodes). The first pass decodes with osm-pbf-parser-node; the second only needs node
 * coordinates and uses our own lean decoder (`readNodeCoordinates`).
 */
export class OsmPbfImporter implements PlaceImporter {
  private dataDate: string | null = null;

  constructor(private readonly path: string) {}

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    const fileName = basename(this.path);
    const collector = new OsmElementCollector(options.bbox);
    let sortedByType = false;
    for await (const block of readPbfBlocks(this.path, fileName, options.signal)) {
      if (block.type === "OSMHeader") {
        const stamp = block.header.replicationTimestamp;
        this.dataDate = stamp ? dateFromEpochSeconds(stamp) : dateFromFileName(fileName);
        sortedByType = block.header.optionalFeatures.includes("Sort.Type_then_ID");
        continue;
      }
      const items: ImportItem[] = [];
      for (const element of parsePrimitiveBlock(block.data, FIRST_PASS_TAGS) as Parsed[]) {
        let item: ImportItem | null = null;
        if (element.type === "node") item = collector.node(element.id, element.lat, element.lon, element.tags);
        else if (element.type === "way") item = collector.way(element.id, element.refs, element.tags);
        if (item) items.push(item);
      }
      yield* items;
    }
    if (collector.wayCount === 0) return;
    for await (const block of readPbfBlocks(this.path, fileName, options.signal)) {
      if (block.type !== "OSMData") continue;
      const { sawNonNodes } = readNodeCoordinates(block.data, (id, lat, lng) => collector.coordinates(id, lat, lng));
      // Nodes come first in a sorted file: once ways start (or all are found) we are done.
      if (collector.allCoordinatesKnown || (sortedByType && sawNonNodes)) break;
    }
    yield* collector.ways();
  }

  source(): SourceInfo {
    return { kind: "osm", dataDate: this.dataDate ?? dateFromFileName(basename(this.path)), licence: OSM_LICENCE, attribution: OSM_ATTRIBUTION };
  }
}
