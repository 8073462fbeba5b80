import { statSync } from "node:fs";
import { basename } from "node:path";
import { OSM_ATTRIBUTION, OSM_LICENCE, type ImportItem, type ImportOptions, type PlaceImporter, type SourceInfo } from "../place-record.js";
import { dateFromEpochSeconds, dateFromFileName } from "./data-date.js";
import { OsmElementCollector } from "./osm-elements.js";
import { decodeItems } from "./import-item-codec.js";
import { readPbfBlobs, type PbfBlob } from "./pbf-blocks.js";
import type { EncodedArea, NodePositionsBlock, PbfTask, TaggedBlock, WayRefsBlock } from "./pbf-decode.js";
import { decodeInOrder, PbfDecoderThreads } from "./pbf-decoder-threads.js";
import { BLOCK_HOLDS } from "./pbf-tagged-elements.js";

export interface OsmPbfOptions {
  /** Decoding threads (default `PbfDecoderThreads.defaultCount()`: one per core, at most 4; 0 decodes inline). */
  threads?: number;
}

/**
 * `.osm.pbf`, streamed in up to three passes: businesses and named places (nodes, ways,
 * relations); when relations were kept, the node lists of their member ways; then the
 * coordinates of the nodes that ways and relations need. All use our own lean decoders
 * (`pbf-tagged-elements.ts`, `pbf-blocks.ts`), in decoding threads (`pbf-decode.ts`): this
 * thread reads the file and keeps the collector's state (the areas waiting for their
 * nodes), the threads inflate, decode and map each block's elements to items.
 */
export class OsmPbfImporter implements PlaceImporter {
  private dataDate: string | null = null;

  constructor(
    private readonly path: string,
    private readonly options: OsmPbfOptions = {},
  ) {}

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    for await (const items of this.readBatches(options)) yield* items;
  }

  /**
   * `read`, one array of items per block of the file (or per thousand areas at the end):
   * the same items in the same order, for a consumer that takes them in batches.
   */
  async *readBatches(options: ImportOptions): AsyncGenerator<ImportItem[]> {
    const fileName = basename(this.path);
    const collector = new OsmElementCollector(options.bbox);
    const totalBytes = statSync(this.path).size;
    const threads = new PbfDecoderThreads(this.options.threads);
    // Blocks under way: a few per thread, so that a thread finds its next block queued even
    // when this thread (busy writing the items, or waiting for a core) answers late. A block
    // is ~100 KB compressed: memory stays a few MB.
    const window = Math.max(2, threads.count * 4);
    const read = (pass: number, block: { end: number }) => options.onRead?.({ pass, bytes: block.end, totalBytes });
    // Each pass: the file's blocks (after the first, only those holding what it looks for), each data block's result in file order.
    const pass = (task: (blob: Buffer) => PbfTask, wanted?: (dataIndex: number) => boolean) =>
      decodeInOrder(readPbfBlobs(this.path, fileName, options.signal, wanted), (block: PbfBlob) => (block.type === "OSMData" ? threads.run(task(block.blob)) : null), window);
    // What each data block holds (BLOCK_HOLDS bits), learnt in the first pass: the member-ways
    // pass reads only blocks with ways, the node pass only blocks with nodes (each skips
    // most of the file unread and uninflated; the blocks left out hold nothing it wants).
    const holds: number[] = [];
    const holding = (what: number) => (dataIndex: number) => ((holds[dataIndex] ?? ~0) & what) !== 0;
    try {
      let sortedByType = false;
      for await (const [block, result] of pass((blob) => ({ pass: 1, blob, fileName, bbox: options.bbox }))) {
        read(1, block);
        if (block.type === "OSMHeader") {
          const stamp = block.header.replicationTimestamp;
          this.dataDate = stamp ? dateFromEpochSeconds(stamp) : dateFromFileName(fileName);
          sortedByType = block.header.optionalFeatures.includes("Sort.Type_then_ID");
          continue;
        }
        const { items, areas, places, refs } = result as TaggedBlock;
        holds.push((result as TaggedBlock).holds);
        for (const area of JSON.parse(areas) as EncodedArea[]) {
          const what = "business" in area.what ? { business: places[area.what.business]! } : area.what;
          collector.keep({ ...area, what, refs: area.type === "way" ? refs.subarray(area.refs[0], area.refs[1]) : area.refs });
        }
        const decoded = decodeItems(items);
        if (decoded.length > 0) yield decoded;
      }
      if (collector.pendingCount === 0) return;
      if (collector.needsMemberWays) {
        const wanted = collector.wantedWays();
        for await (const [block, result] of pass((blob) => ({ pass: 2, blob, fileName, wanted }), holding(BLOCK_HOLDS.ways))) {
          read(2, block);
          if (result === null) continue;
          const { ids, ends, refs, sawRelations } = result as WayRefsBlock;
          for (let i = 0; i < ids.length; i++) {
            if (collector.wantsWay(ids[i]!)) collector.memberWay(ids[i]!, Array.from(refs.subarray(i === 0 ? 0 : ends[i - 1], ends[i])));
          }
          // Ways come before relations in a sorted file: once relations start, we are done.
          if (!collector.needsMemberWays || (sortedByType && sawRelations)) break;
        }
      }
      const wanted = collector.wantedNodes();
      for await (const [block, result] of pass((blob) => ({ pass: 3, blob, fileName, wanted }), holding(BLOCK_HOLDS.nodes))) {
        read(3, block);
        if (result === null) continue;
        const { index, lat, lng, sawNonNodes } = result as NodePositionsBlock;
        for (let i = 0; i < index.length; i++) collector.coordinatesAt(index[i]!, lat[i]!, lng[i]!);
        // Nodes come first in a sorted file: once ways start (or all are found) we are done.
        if (collector.allCoordinatesKnown || (sortedByType && sawNonNodes)) break;
      }
      let batch: ImportItem[] = [];
      for (const item of collector.areas()) {
        batch.push(item);
        if (batch.length === 1000) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      await threads.close();
    }
  }

  source(): SourceInfo {
    return { kind: "osm", dataDate: this.dataDate ?? dateFromFileName(basename(this.path)), licence: OSM_LICENCE, attribution: OSM_ATTRIBUTION };
  }
}
