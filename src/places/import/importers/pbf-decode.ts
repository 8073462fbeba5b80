import type { BoundingBox } from "../../../core/geo.js";
import { isAppError } from "../../../core/errors.js";
import { KEPT_TAG_KEYS, MAPPED_ELEMENT_KEYS } from "../../vocabulary/osm-tags.js";
import type { ImportItem } from "../place-record.js";
import { Doubles } from "./doubles.js";
import { encodeItems, type EncodedItems } from "./import-item-codec.js";
import { isPendingArea, osmNodeItem, osmRelationArea, osmWayArea, type PendingArea } from "./osm-elements.js";
import { decodeBlob, readNodeCoordinates } from "./pbf-blocks.js";
import { readTaggedElements, readWayRefs } from "./pbf-tagged-elements.js";

/**
 * One compressed OSMData block's work in one pass of the PBF importer, done where it is
 * cheap to do (a decoding thread, `pbf-decoder-threads.ts`): inflate, decode, and for the
 * first pass map every element to its item. What comes back is compact on purpose:
 * a structured clone of thousands of small objects costs the receiving thread about as
 * much as making them did (bench/pbf-transfer.js), so items travel as one string
 * (`import-item-codec.ts`) and numbers as typed arrays whose memory moves instead of
 * being copied.
 */

/** Node ids or way ids, ascending (shared memory: every thread reads the same copy). */
export type SortedIds = Float64Array;

export type PbfTask =
  /** Businesses and named places; ways and relations as areas for the collector. */
  | { pass: 1; blob: Buffer; fileName: string; bbox?: BoundingBox }
  /** The node lists of the ways in `wanted` (relations' member ways). */
  | { pass: 2; blob: Buffer; fileName: string; wanted: SortedIds }
  /** The positions of the nodes in `wanted`. */
  | { pass: 3; blob: Buffer; fileName: string; wanted: SortedIds };

/**
 * A pending area as it travels: a way's node ids as a [start, end) range of the block's
 * `refs`, a relation's way ids as they are; a business's place as an index of `places`.
 */
export type EncodedArea = Omit<PendingArea, "refs" | "what"> & { refs: number[]; what: { business: number } | Exclude<PendingArea["what"], { business: string }> };

export interface TaggedBlock {
  pass: 1;
  /** The block's items in element order (`encodeItems`). */
  items: EncodedItems;
  /** JSON of its areas (`EncodedArea[]`), and their places (`encodeUnplaced`). */
  areas: string;
  places: string[];
  refs: Float64Array;
  /** What kinds of element the block holds (`BLOCK_HOLDS` bits). */
  holds: number;
}
export interface WayRefsBlock {
  pass: 2;
  /** The wanted ways found, and where each one's node ids end in `refs`. */
  ids: Float64Array;
  ends: Uint32Array;
  refs: Float64Array;
  sawRelations: boolean;
}
export interface NodePositionsBlock {
  pass: 3;
  /** Positions in `wanted` of the nodes found, and their coordinates. */
  index: Uint32Array;
  lat: Float64Array;
  lng: Float64Array;
  sawNonNodes: boolean;
}
export type PbfResult = TaggedBlock | WayRefsBlock | NodePositionsBlock;
/** An error in a thread, as data (an error object crosses threads without its class). */
export type PbfFailure = { error: { message: string; code?: string } };

const KEPT_KEYS: ReadonlySet<string> = new Set(KEPT_TAG_KEYS);
const MAPPED_KEYS: ReadonlySet<string> = new Set(MAPPED_ELEMENT_KEYS);

/** The buffers of a result, to move rather than copy. */
export function transferables(result: PbfResult | PbfFailure): ArrayBuffer[] {
  if ("error" in result) return [];
  const views = result.pass === 1 ? [result.refs, result.items.numbers] : result.pass === 2 ? [result.ids, result.ends, result.refs] : [result.index, result.lat, result.lng];
  return views.map((view) => view.buffer as ArrayBuffer);
}

export function decodePbfTask(task: PbfTask): PbfResult | PbfFailure {
  try {
    const data = decodeBlob(task.blob, task.fileName);
    if (task.pass === 1) return taggedBlock(data, task.bbox);
    if (task.pass === 2) return wayRefsBlock(data, task.wanted);
    return nodePositionsBlock(data, task.wanted);
  } catch (err) {
    return { error: { message: err instanceof Error ? err.message : String(err), code: isAppError(err) ? err.code : undefined } };
  }
}

function taggedBlock(data: Buffer, bbox: BoundingBox | undefined): TaggedBlock {
  const items: ImportItem[] = [];
  const areas: EncodedArea[] = [];
  const places: string[] = [];
  const refs = new Doubles();
  const keep = (result: ImportItem | PendingArea | null) => {
    if (result === null) return;
    if (!isPendingArea(result)) return void items.push(result);
    const what = "business" in result.what ? { business: places.push(result.what.business) - 1 } : result.what;
    if (result.type === "way") {
      const start = refs.length;
      for (const ref of result.refs) refs.push(ref);
      areas.push({ ...result, what, refs: [start, refs.length] });
    } else areas.push({ ...result, what, refs: result.refs as number[] });
  };
  const holds = readTaggedElements(data, KEPT_KEYS, {
    node: (id, lat, lng, tags) => keep(osmNodeItem(id, lat, lng, tags, bbox)),
    way: (id, tags, wayRefs) => keep(osmWayArea(id, wayRefs, tags)),
    relation: (id, tags, members) => keep(osmRelationArea(id, members, tags)),
  }, MAPPED_KEYS);
  return { pass: 1, items: encodeItems(items), areas: JSON.stringify(areas), places, refs: refs.done(), holds };
}

/** The index of `id` in ascending `ids`, or -1. */
function indexOfSorted(ids: SortedIds, id: number): number {
  const at = lowerBound(ids, id);
  return at < ids.length && ids[at] === id ? at : -1;
}

function wayRefsBlock(data: Buffer, wanted: SortedIds): WayRefsBlock {
  const ids = new Doubles();
  const ends: number[] = [];
  const refs = new Doubles();
  const { sawRelations } = readWayRefs(
    data,
    (id) => indexOfSorted(wanted, id) >= 0,
    (id, wayRefs) => {
      ids.push(id);
      for (const ref of wayRefs) refs.push(ref);
      ends.push(refs.length);
    },
  );
  return { pass: 2, ids: ids.done(), ends: Uint32Array.from(ends), refs: refs.done(), sawRelations };
}

function nodePositionsBlock(data: Buffer, wanted: SortedIds): NodePositionsBlock {
  const index: number[] = [];
  const lat = new Doubles();
  const lng = new Doubles();
  // Nodes come by ascending id (within a block at least): walk a cursor forward, and
  // search again only when an id goes back.
  let cursor = 0;
  let lastId = -Infinity;
  let started = false;
  const { sawNonNodes } = readNodeCoordinates(data, (id, nodeLat, nodeLng) => {
    if (id < lastId || !started) cursor = lowerBound(wanted, id);
    started = true;
    lastId = id;
    while (cursor < wanted.length && wanted[cursor]! < id) cursor++;
    if (cursor < wanted.length && wanted[cursor] === id) {
      index.push(cursor);
      lat.push(nodeLat);
      lng.push(nodeLng);
    }
  });
  return { pass: 3, index: Uint32Array.from(index), lat: lat.done(), lng: lng.done(), sawNonNodes };
}

function lowerBound(ids: SortedIds, id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
