// A minimal OSM PBF writer for the benches (https://wiki.openstreetmap.org/wiki/PBF_Format):
// zlib-compressed blocks of DenseNodes (with DenseInfo, as Geofabrik writes them), ways
// and relations, in a file sorted by type then id. Only what the synthetic country
// extract needs; not a product path.
import { closeSync, openSync, writeSync } from "node:fs";
import { deflateSync } from "node:zlib";

/** A growable protobuf encoder. */
export class ProtoWriter {
  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
    this.pos = 0;
  }
  ensure(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  /** Unsigned varint, exact up to 2^53. */
  varint(n) {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80000000) {
      buf[pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    while (n >= 0x80) {
      buf[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }
  svarint(n) {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }
  key(field, wireType) {
    this.varint(field * 8 + wireType);
  }
  bytes(field, data) {
    this.key(field, 2);
    this.varint(data.length);
    this.ensure(data.length);
    if (typeof data === "string") this.pos += this.buf.write(data, this.pos, "utf8");
    else {
      data.copy ? data.copy(this.buf, this.pos) : this.buf.set(data, this.pos);
      this.pos += data.length;
    }
  }
  string(field, s) {
    this.bytes(field, Buffer.from(s, "utf8"));
  }
  uint(field, n) {
    this.key(field, 0);
    this.varint(n);
  }
  sint(field, n) {
    this.key(field, 0);
    this.svarint(n);
  }
  /** A packed repeated field from an array of numbers (deltas already applied by the caller when wanted). */
  packed(field, values, signed) {
    if (values.length === 0) return;
    const inner = scratch();
    for (const v of values) signed ? inner.svarint(v) : inner.varint(v);
    this.bytes(field, inner.result());
  }
  result() {
    return this.buf.subarray(0, this.pos);
  }
}

// Packed fields are written through a scratch encoder, copied out at once.
const scratchWriter = new ProtoWriter(1 << 20);
function scratch() {
  scratchWriter.pos = 0;
  return scratchWriter;
}

function deltas(values) {
  const out = new Array(values.length);
  let prev = 0;
  for (let i = 0; i < values.length; i++) {
    out[i] = values[i] - prev;
    prev = values[i];
  }
  return out;
}

/** A block's string table: index 0 is the empty string, as the format asks. */
class StringTable {
  constructor() {
    this.index = new Map([["", 0]]);
    this.list = [""];
  }
  id(s) {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.index.set(s, i);
      this.list.push(s);
    }
    return i;
  }
  encode(w) {
    const table = new ProtoWriter(1 << 14);
    for (const s of this.list) table.string(1, s);
    w.bytes(1, table.result());
  }
}

const TIMESTAMP = 1_700_000_000; // seconds; date_granularity 1000 ms
const COORD = 1e7; // granularity 100 nanodegrees

/**
 * Writes a sorted PBF: `addNode`s (ascending ids) first, then `addWay`s, then
 * `addRelation`s. Tags are [key, value] pairs. Blocks hold up to 8,000 elements.
 */
export class PbfWriter {
  constructor(path, { replicationTimestamp = TIMESTAMP, blockSize = 8000 } = {}) {
    this.fd = openSync(path, "w");
    this.bytes = 0;
    this.blockSize = blockSize;
    this.pending = [];
    this.kind = null;
    const header = new ProtoWriter(256);
    header.string(4, "OsmSchema-V0.6");
    header.string(4, "DenseNodes");
    header.string(5, "Sort.Type_then_ID");
    header.string(16, "outreach bench/_pbf-writer.js");
    header.uint(32, replicationTimestamp);
    this.writeBlob("OSMHeader", header.result());
  }

  writeBlob(type, raw) {
    const blob = new ProtoWriter(raw.length / 2 + 64);
    blob.uint(2, raw.length);
    blob.bytes(3, deflateSync(raw));
    const blobBytes = blob.result();
    const header = new ProtoWriter(64);
    header.string(1, type);
    header.uint(3, blobBytes.length);
    const headerBytes = header.result();
    const length = Buffer.alloc(4);
    length.writeUInt32BE(headerBytes.length);
    for (const part of [length, headerBytes, blobBytes]) {
      writeSync(this.fd, part);
      this.bytes += part.length;
    }
  }

  add(kind, element) {
    if (this.kind !== kind) this.flush();
    this.kind = kind;
    this.pending.push(element);
    if (this.pending.length >= this.blockSize) this.flush();
  }
  addNode(id, lat, lng, tags = []) {
    this.add("node", { id, lat, lng, tags });
  }
  addWay(id, refs, tags = []) {
    this.add("way", { id, refs, tags });
  }
  /** members: [type ("node" | "way" | "relation"), ref, role]. */
  addRelation(id, members, tags = []) {
    this.add("relation", { id, members, tags });
  }

  flush() {
    if (this.pending.length === 0) return;
    const strings = new StringTable();
    const group = new ProtoWriter(1 << 18);
    if (this.kind === "node") this.encodeDense(group, strings);
    else for (const el of this.pending) this.kind === "way" ? this.encodeWay(group, strings, el) : this.encodeRelation(group, strings, el);
    const block = new ProtoWriter(group.pos + (1 << 16));
    strings.encode(block);
    block.bytes(2, group.result());
    block.uint(17, 100);
    block.uint(18, 1000);
    this.writeBlob("OSMData", block.result());
    this.pending = [];
  }

  encodeDense(group, strings) {
    const nodes = this.pending;
    const dense = new ProtoWriter(nodes.length * 24);
    dense.packed(1, deltas(nodes.map((n) => n.id)), true);
    // DenseInfo: version, timestamp, changeset, uid, user_sid (all but version delta coded).
    const info = new ProtoWriter(nodes.length * 16);
    info.packed(1, nodes.map((n) => 1 + (n.id % 7)), false);
    info.packed(2, deltas(nodes.map((n) => TIMESTAMP - (n.id % 100_000_000))), true);
    info.packed(3, deltas(nodes.map((n) => 1_000_000 + Math.floor(n.id / 50))), true);
    const uids = nodes.map((n) => 1000 + (Math.floor(n.id / 400) % 5000));
    info.packed(4, deltas(uids), true);
    info.packed(5, deltas(uids.map((u) => strings.id(`mapper${u}`))), true);
    dense.bytes(5, info.result());
    dense.packed(8, deltas(nodes.map((n) => Math.round(n.lat * COORD))), true);
    dense.packed(9, deltas(nodes.map((n) => Math.round(n.lng * COORD))), true);
    if (nodes.some((n) => n.tags.length > 0)) {
      const kv = [];
      for (const n of nodes) {
        for (const [k, v] of n.tags) kv.push(strings.id(k), strings.id(v));
        kv.push(0);
      }
      dense.packed(10, kv, false);
    }
    group.bytes(2, dense.result());
  }

  encodeWay(group, strings, way) {
    const w = new ProtoWriter(64 + way.refs.length * 4);
    w.uint(1, way.id);
    w.packed(2, way.tags.map(([k]) => strings.id(k)), false);
    w.packed(3, way.tags.map(([, v]) => strings.id(v)), false);
    const info = new ProtoWriter(32);
    info.uint(1, 1 + (way.id % 5));
    info.uint(2, TIMESTAMP - (way.id % 100_000_000));
    info.uint(3, 2_000_000 + Math.floor(way.id / 20));
    w.bytes(4, info.result());
    w.packed(8, deltas(way.refs), true);
    group.bytes(3, w.result());
  }

  encodeRelation(group, strings, relation) {
    const r = new ProtoWriter(128);
    r.uint(1, relation.id);
    r.packed(2, relation.tags.map(([k]) => strings.id(k)), false);
    r.packed(3, relation.tags.map(([, v]) => strings.id(v)), false);
    r.packed(8, relation.members.map(([, , role]) => strings.id(role)), false);
    r.packed(9, deltas(relation.members.map(([, ref]) => ref)), true);
    r.packed(10, relation.members.map(([type]) => ["node", "way", "relation"].indexOf(type)), false);
    group.bytes(4, r.result());
  }

  close() {
    this.flush();
    closeSync(this.fd);
    return this.bytes;
  }
}
