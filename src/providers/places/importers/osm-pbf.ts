import { basename } from "node:path";
import { hasBusinessTag, KEPT_TAG_KEYS } from "../osm-tags.js";
import { OSM_ATTRIBUTION, OSM_LICENCE, type ImportItem, type ImportOptions, type PlaceImporter, type SourceInfo } from "../place-record.js";
import { dateFromEpochSeconds, dateFromFileName } from "./data-date.js";
import { OsmElementCollector } from "./osm-elements.js";
import { readNodeCoordinates, readPbfBlocks } from "./pbf-blocks.js";
import { readTaggedElements } from "./pbf-tagged-elements.js";

const KEPT_KEYS: ReadonlySet<string> = new Set(KEPT_TAG_KEYS);

/**
 * `.osm.pbf` (streaming, two passes: businesses, then the coordinates of business ways'
 * nodes). Both passes use our own lean decoders: the first reads only tagged elements'
 * kept tags (`readTaggedElements`), the second only node coordinates (`readNodeCoordinates`).
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
      readTaggedElements(block.data, KEPT_KEYS, {
        node(id, lat, lng, tags) {
          const item = collector.node(id, lat, lng, tags);
          if (item) items.push(item);
        },
        way(id, tags, refs) {
          // A named street or an address-only building is no business: skip its node list.
          if (!hasBusinessTag(tags)) return;
          const item = collector.way(id, refs(), tags);
          if (item) items.push(item);
        },
      });
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
