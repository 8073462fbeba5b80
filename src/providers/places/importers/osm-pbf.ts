import { statSync } from "node:fs";
import { basename } from "node:path";
import { hasBusinessTag, KEPT_TAG_KEYS, osmNamedPlaceKind } from "../osm-tags.js";
import { OSM_ATTRIBUTION, OSM_LICENCE, type ImportItem, type ImportOptions, type PlaceImporter, type SourceInfo } from "../place-record.js";
import { dateFromEpochSeconds, dateFromFileName } from "./data-date.js";
import { OsmElementCollector } from "./osm-elements.js";
import { readNodeCoordinates, readPbfBlocks } from "./pbf-blocks.js";
import { readTaggedElements, readWayRefs } from "./pbf-tagged-elements.js";

const KEPT_KEYS: ReadonlySet<string> = new Set(KEPT_TAG_KEYS);

/**
 * `.osm.pbf`, streamed in up to three passes: businesses and named places (nodes, ways,
 * relations); when relations were kept, the node lists of their member ways
 * (`readWayRefs`); then the coordinates of the nodes that ways and relations need
 * (`readNodeCoordinates`). All use our own lean decoders: the first pass reads only
 * tagged elements' kept tags (`readTaggedElements`).
 */
export class OsmPbfImporter implements PlaceImporter {
  private dataDate: string | null = null;

  constructor(private readonly path: string) {}

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    const fileName = basename(this.path);
    const collector = new OsmElementCollector(options.bbox);
    const totalBytes = statSync(this.path).size;
    const read = (pass: number, block: { end: number }) => options.onRead?.({ pass, bytes: block.end, totalBytes });
    let sortedByType = false;
    for await (const block of readPbfBlocks(this.path, fileName, options.signal)) {
      read(1, block);
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
          // A named street or an address-only building is nothing to us: skip its node list.
          if (!hasBusinessTag(tags) && !osmNamedPlaceKind(tags)) return;
          const item = collector.way(id, refs(), tags);
          if (item) items.push(item);
        },
        relation(id, tags, members) {
          const item = collector.relation(id, members, tags);
          if (item) items.push(item);
        },
      });
      yield* items;
    }
    if (collector.pendingCount === 0) return;
    if (collector.needsMemberWays) {
      for await (const block of readPbfBlocks(this.path, fileName, options.signal)) {
        read(2, block);
        if (block.type !== "OSMData") continue;
        const { sawRelations } = readWayRefs(block.data, (id) => collector.wantsWay(id), (id, refs) => collector.memberWay(id, refs));
        // Ways come before relations in a sorted file: once relations start, we are done.
        if (!collector.needsMemberWays || (sortedByType && sawRelations)) break;
      }
    }
    for await (const block of readPbfBlocks(this.path, fileName, options.signal)) {
      read(3, block);
      if (block.type !== "OSMData") continue;
      const { sawNonNodes } = readNodeCoordinates(block.data, (id, lat, lng) => collector.coordinates(id, lat, lng));
      // Nodes come first in a sorted file: once ways start (or all are found) we are done.
      if (collector.allCoordinatesKnown || (sortedByType && sawNonNodes)) break;
    }
    yield* collector.areas();
  }

  source(): SourceInfo {
    return { kind: "osm", dataDate: this.dataDate ?? dateFromFileName(basename(this.path)), licence: OSM_LICENCE, attribution: OSM_ATTRIBUTION };
  }
}
