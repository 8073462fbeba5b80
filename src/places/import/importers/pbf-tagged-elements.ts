import { ProtoReader, readPrimitiveBlockFrame, type PrimitiveBlockFrame } from "./pbf-blocks.js";

/**
 * The first pass of the PBF importer over one decompressed OSMData block
 * (https://wiki.openstreetmap.org/wiki/PBF_Format): every node and way that carries at
 * least one of `keptKeys`, with only those tags, and relations too when the sink takes
 * them. Untagged nodes (≈ 95 % of a country's nodes) cost a few varints each; metadata
 * (DenseInfo, Info) is never decoded, strings only when a kept tag needs them, and a
 * way's node list or a relation's members only when the caller asks for them (a named
 * street has kept tags but is no business).
 *
 * Why not osm-pbf-parser-node, which this replaces: it decodes every element in full
 * (metadata, all tags, every way's refs, relations' members) into objects first; on the
 * Liechtenstein extract that was ≈ 3× the time of this pass (bench/import.js).
 *
 * Coordinates are computed as that library did (`readPrimitiveBlockFrame`), so places
 * keep the exact same doubles.
 */

/** A relation member: an element's type and id, and its role ("outer", "label"…). */
export interface RelationMember {
  type: "node" | "way" | "relation";
  ref: number;
  role: string;
}

export interface TaggedElementSink {
  node(id: number, lat: number, lng: number, tags: Record<string, string>): void;
  /** `refs()` decodes the way's node ids (delta-decoded) on demand. */
  way(id: number, tags: Record<string, string>, refs: () => number[]): void;
  /** `members()` decodes the relation's members on demand. Without it, relations are skipped undecoded. */
  relation?(id: number, tags: Record<string, string>, members: () => RelationMember[]): void;
}

/** What a string is as a tag key: not checked yet, not kept, kept, or kept and one that makes an element worth reporting. */
const enum KeyState {
  Unknown = 0,
  Dropped = 1,
  Kept = 2,
  Wanted = 3,
}

/** A block's string table, decoded lazily (most strings are never needed). */
class StringTable {
  private readonly decoded: (string | undefined)[] = [];
  private readonly states: Uint8Array;

  constructor(
    private readonly buf: Buffer,
    private readonly ranges: ReadonlyArray<readonly [number, number]>,
    private readonly keptKeys: ReadonlySet<string>,
    private readonly wantedKeys: ReadonlySet<string> | undefined,
  ) {
    this.states = new Uint8Array(ranges.length);
  }

  get(index: number): string {
    let value = this.decoded[index];
    if (value === undefined) {
      const range = this.ranges[index];
      if (!range) throw new Error(`string index ${index} outside the block's string table`);
      value = this.buf.toString("utf8", range[0], range[1]);
      this.decoded[index] = value;
    }
    return value;
  }

  keyState(index: number): KeyState {
    let state: KeyState | undefined = this.states[index];
    if (state === undefined) throw new Error(`string index ${index} outside the block's string table`);
    if (state === KeyState.Unknown) {
      const key = this.get(index);
      state = !this.keptKeys.has(key) ? KeyState.Dropped : !this.wantedKeys || this.wantedKeys.has(key) ? KeyState.Wanted : KeyState.Kept;
      this.states[index] = state;
    }
    return state;
  }
}

/**
 * An element's tags: a dictionary from the start (no prototype). Every element has its
 * own set and order of keys, so objects built up key by key give V8 thousands of shapes
 * and every lookup of the mapping (fifty per place) misses its caches; a dictionary's
 * lookup is a hash probe. Measured: the first pass's CPU time (bench/country-import.js).
 */
function newTags(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** Values of a repeated scalar field, packed (wire type 2) or not (0), appended to `out`. */
function readRepeated(reader: ProtoReader, wireType: number, signed: boolean, out: number[]): void {
  if (wireType === 2) {
    const packed = reader.sub();
    while (!packed.done) out.push(signed ? packed.svarint() : packed.varint());
  } else if (wireType === 0) out.push(signed ? reader.svarint() : reader.varint());
  else reader.skip(wireType);
}

/**
 * An element's kept (key, value) string indexes, gathered before any object is made: an
 * element with kept tags but none of the wanted keys (an address on a building, a named
 * street: most of them) is dropped without its tags ever being built. Reused element
 * after element.
 */
class TagPairs {
  private readonly indexes: number[] = [];
  private length = 0;
  wanted = false;

  constructor(readonly strings: StringTable) {}

  reset(): void {
    this.length = 0;
    this.wanted = false;
  }

  add(key: number, value: number | undefined): void {
    const state = this.strings.keyState(key);
    if (state === KeyState.Dropped) return;
    if (value === undefined) throw new Error("a tag key without its value");
    this.indexes[this.length++] = key;
    this.indexes[this.length++] = value;
    if (state === KeyState.Wanted) this.wanted = true;
  }

  /** Whether any of the first `length` key indexes is a kept key. */
  anyKept(keys: readonly number[], length: number): boolean {
    for (let i = 0; i < length; i++) if (this.strings.keyState(keys[i]!) !== KeyState.Dropped) return true;
    return false;
  }

  /** The kept tags (later duplicates win), or undefined when no wanted key is among them. */
  tags(): Record<string, string> | undefined {
    if (!this.wanted) return undefined;
    const tags = newTags();
    for (let i = 0; i < this.length; i += 2) tags[this.strings.get(this.indexes[i]!)] = this.strings.get(this.indexes[i + 1]!);
    return tags;
  }
}

/** Kept tags from parallel key and value string indexes, or undefined when no wanted key is kept. */
function keptTags(pairs: TagPairs, keys: readonly number[], vals: readonly number[]): Record<string, string> | undefined {
  pairs.reset();
  for (let i = 0; i < keys.length; i++) pairs.add(keys[i]!, vals[i]);
  return pairs.tags();
}

/** What a block holds (`readTaggedElements`' answer, bits): a later pass reads only the blocks with what it looks for. */
export const BLOCK_HOLDS = { nodes: 1, ways: 2, relations: 4 } as const;

/**
 * `wantedKeys` (among `keptKeys`): when given, only elements with at least one of them are
 * reported (the others cost no tags object). Returns which kinds of element the block
 * holds, tagged or not (`BLOCK_HOLDS` bits).
 */
export function readTaggedElements(block: Buffer, keptKeys: ReadonlySet<string>, sink: TaggedElementSink, wantedKeys?: ReadonlySet<string>): number {
  const frame = readPrimitiveBlockFrame(block);
  const pairs = new TagPairs(new StringTable(block, frame.strings, keptKeys, wantedKeys));
  let holds = 0;
  for (const group of frame.groups) {
    group.fields((field, wireType) => {
      holds |= field === 1 || field === 2 ? BLOCK_HOLDS.nodes : field === 3 ? BLOCK_HOLDS.ways : field === 4 ? BLOCK_HOLDS.relations : 0;
      if (wireType !== 2) return false;
      if (field === 2) readDenseNodes(group.sub(), pairs, frame, sink);
      else if (field === 1) readNode(group.sub(), pairs, frame, sink);
      else if (field === 3) readWay(group.sub(), pairs, sink);
      else if (field === 4 && sink.relation) readRelation(group.sub(), pairs, sink);
      else return false; // relations nobody asked for, changesets
      return true;
    });
  }
  return holds;
}

function readDenseNodes(dense: ProtoReader, pairs: TagPairs, frame: PrimitiveBlockFrame, sink: TaggedElementSink): void {
  let ids: ProtoReader | undefined;
  let lats: ProtoReader | undefined;
  let lons: ProtoReader | undefined;
  let keysVals: ProtoReader | undefined;
  dense.fields((f, w) => {
    if (w !== 2) return false;
    if (f === 1) ids = dense.sub();
    else if (f === 8) lats = dense.sub();
    else if (f === 9) lons = dense.sub();
    else if (f === 10) keysVals = dense.sub();
    else return false; // 5: denseinfo
    return true;
  });
  if (!ids || !lats || !lons) return;
  let id = 0;
  let lat = 0;
  let lon = 0;
  while (!ids.done) {
    id += ids.svarint();
    lat += lats.svarint();
    lon += lons.svarint();
    if (!keysVals || keysVals.done) continue;
    // This node's (key, value) pairs, up to a 0.
    pairs.reset();
    for (let key = keysVals.varint(); key !== 0; key = keysVals.varint()) {
      pairs.add(key, keysVals.varint());
      if (keysVals.done) break;
    }
    const tags = pairs.tags();
    if (tags) sink.node(id, frame.latitude(lat), frame.longitude(lon), tags);
  }
}

function readNode(node: ProtoReader, pairs: TagPairs, frame: PrimitiveBlockFrame, sink: TaggedElementSink): void {
  let id = 0;
  let lat = 0;
  let lon = 0;
  const keys: number[] = [];
  const vals: number[] = [];
  node.fields((f, w) => {
    if (f === 1 && w === 0) id = node.svarint();
    else if (f === 8 && w === 0) lat = node.svarint();
    else if (f === 9 && w === 0) lon = node.svarint();
    else if (f === 2) readRepeated(node, w, false, keys);
    else if (f === 3) readRepeated(node, w, false, vals);
    else return false;
    return true;
  });
  const tags = keptTags(pairs, keys, vals);
  if (tags) sink.node(id, frame.latitude(lat), frame.longitude(lon), tags);
}

/** Numbers reused element after element (a block has thousands of ways): only `length` of `values` count. */
class Scratch {
  readonly values: number[] = [];
  length = 0;
  push(value: number): void {
    this.values[this.length++] = value;
  }
}
const wayKeys = new Scratch();
const wayVals = new Scratch();

/** Values of a repeated unsigned field, packed or not, appended to `out` (`readRepeated` without an array per element). */
function readUnsigned(part: ProtoReader | number, out: Scratch): void {
  if (typeof part === "number") out.push(part);
  else while (!part.done) out.push(part.varint());
}

/**
 * Walks a Way message once and returns its id. Where its refs are goes to `refParts` (packed:
 * a sub-reader; unpacked: the value); with `valParts`, its keys are decoded into `wayKeys`
 * and where its values are goes to `valParts`, else both are skipped. Values and refs are
 * decoded only if needed: most ways (buildings, roads) have no kept key. The fields are
 * walked here rather than through `fields` and a callback: one closure fewer per way.
 */
function walkWay(way: ProtoReader, refParts: Array<ProtoReader | number>, valParts?: Array<ProtoReader | number>): number {
  let id = 0;
  while (!way.done) {
    const key = way.varint();
    const f = Math.floor(key / 8);
    const w = key & 7;
    if (f === 1 && w === 0) id = way.varint();
    else if (valParts && f === 2 && (w === 2 || w === 0)) readUnsigned(w === 2 ? way.sub() : way.varint(), wayKeys);
    else if (valParts && f === 3 && w === 2) valParts.push(way.sub());
    else if (valParts && f === 3 && w === 0) valParts.push(way.varint());
    else if (f === 8 && w === 2) refParts.push(way.sub());
    else if (f === 8 && w === 0) refParts.push(way.svarint());
    else way.skip(w);
  }
  return id;
}

function readWay(way: ProtoReader, pairs: TagPairs, sink: TaggedElementSink): void {
  wayKeys.length = 0;
  const valParts: Array<ProtoReader | number> = [];
  const refParts: Array<ProtoReader | number> = [];
  const id = walkWay(way, refParts, valParts);
  if (!pairs.anyKept(wayKeys.values, wayKeys.length)) return;
  wayVals.length = 0;
  for (const part of valParts) readUnsigned(part, wayVals);
  pairs.reset();
  for (let i = 0; i < wayKeys.length; i++) pairs.add(wayKeys.values[i]!, i < wayVals.length ? wayVals.values[i] : undefined);
  const tags = pairs.tags();
  if (!tags) return;
  sink.way(id, tags, () => decodeRefs(refParts));
}

/** A way's node ids from where they are (packed: a sub-reader; unpacked: the values), delta-decoded. */
function decodeRefs(refParts: ReadonlyArray<ProtoReader | number>): number[] {
  const refs: number[] = [];
  let ref = 0;
  for (const part of refParts) {
    if (typeof part === "number") refs.push((ref += part));
    else while (!part.done) refs.push((ref += part.svarint()));
  }
  return refs;
}

const MEMBER_TYPES = ["node", "way", "relation"] as const;

function readRelation(relation: ProtoReader, pairs: TagPairs, sink: TaggedElementSink): void {
  let id = 0;
  const keys: number[] = [];
  const vals: number[] = [];
  const roles: number[] = [];
  const memids: number[] = [];
  const types: number[] = [];
  relation.fields((f, w) => {
    if (f === 1 && w === 0) id = relation.varint();
    else if (f === 2) readRepeated(relation, w, false, keys);
    else if (f === 3) readRepeated(relation, w, false, vals);
    else if (f === 8) readRepeated(relation, w, false, roles);
    else if (f === 9) readRepeated(relation, w, true, memids);
    else if (f === 10) readRepeated(relation, w, false, types);
    else return false;
    return true;
  });
  const tags = keptTags(pairs, keys, vals);
  if (!tags) return;
  sink.relation!(id, tags, () => {
    const members: RelationMember[] = [];
    let ref = 0;
    for (let i = 0; i < memids.length; i++) {
      ref += memids[i]!;
      const role = roles[i];
      members.push({ type: MEMBER_TYPES[types[i] ?? 0] ?? "node", ref, role: role === undefined ? "" : pairs.strings.get(role) });
    }
    return members;
  });
}

/**
 * The node lists of the ways `wanted` asks for in a decompressed OSMData block, tagged or
 * not (the member ways of relations: their outlines are mostly untagged). Returns whether
 * the block holds relations (in a file sorted by type, the ways are then over).
 */
export function readWayRefs(block: Buffer, wanted: (id: number) => boolean, onWay: (id: number, refs: number[]) => void): { sawRelations: boolean } {
  const frame = readPrimitiveBlockFrame(block);
  let sawRelations = false;
  for (const group of frame.groups) {
    group.fields((field, wireType) => {
      if (field === 4) sawRelations = true;
      if (field !== 3 || wireType !== 2) return false;
      const refParts: Array<ProtoReader | number> = [];
      const id = walkWay(group.sub(), refParts);
      if (wanted(id)) onWay(id, decodeRefs(refParts));
      return true;
    });
  }
  return { sawRelations };
}
