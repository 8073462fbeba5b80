import { open } from "node:fs/promises";
import { inflateSync } from "node:zlib";
import { badRequest } from "../../../core/errors.js";

/**
 * The OSM PBF container (https://wiki.openstreetmap.org/wiki/PBF_Format): a sequence of
 * [4-byte big-endian length][BlobHeader][Blob]. We read the container ourselves to (1)
 * refuse lz4/zstd/lzma blocks with a message that names the compression, (2) read the
 * header's replication timestamp (the data date), and (3) stop the second pass early.
 * The primitive blocks are decoded by our own lean readers too (`readTaggedElements` for
 * the first pass, `readNodeCoordinates` below for the second); the tests check both
 * against osm-pbf-parser-node, which stays a development dependency as that oracle.
 */

export interface PbfHeader {
  requiredFeatures: string[];
  optionalFeatures: string[];
  writingProgram: string | null;
  /** Seconds since the epoch, or null. */
  replicationTimestamp: number | null;
}

/** A block, and the byte offset where the next one starts (how far the file has been read). */
export type PbfBlock = ({ type: "OSMHeader"; header: PbfHeader } | { type: "OSMData"; data: Buffer }) & { end: number };

/** A block as read from the file: data blocks still compressed (their Blob message), to inflate where they are decoded. */
export type PbfBlob = ({ type: "OSMHeader"; header: PbfHeader } | { type: "OSMData"; blob: Buffer }) & { end: number };

/** Generous caps from the format's own limits (header 64 KiB, blob 32 MiB). */
const MAX_HEADER = 64 * 1024;
const MAX_BLOB = 32 * 1024 * 1024;

/** A protobuf wire-format reader over a buffer range (no copies). */
export class ProtoReader {
  pos: number;
  private readonly end: number;
  constructor(
    private readonly buf: Buffer,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start;
    this.end = end;
  }
  get done(): boolean {
    return this.pos >= this.end;
  }
  varint(): number {
    const buf = this.buf;
    const end = this.end;
    let pos = this.pos;
    let result = 0;
    // Up to 4 bytes (28 bits) in integer arithmetic: nearly every value of a PBF block
    // (deltas, string indexes, lengths). The hottest function of an import.
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) throw new Error("truncated varint");
      const byte = buf[pos++]!;
      result |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.pos = pos;
        return result;
      }
    }
    // Beyond: floating arithmetic, exact up to 2^53.
    for (let shift = 28; ; shift += 7) {
      if (shift > 63) throw new Error("varint too long");
      if (pos >= end) throw new Error("truncated varint");
      const byte = buf[pos++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) {
        this.pos = pos;
        return result;
      }
    }
  }
  bytes(): Buffer {
    const length = this.varint();
    const end = this.pos + length;
    if (end > this.end) throw new Error("truncated field");
    const out = this.buf.subarray(this.pos, end);
    this.pos = end;
    return out;
  }
  /** Past a length-delimited field, without a view of it (skipped fields are most of a block's). */
  private skipBytes(): void {
    const length = this.varint();
    if (this.pos + length > this.end) throw new Error("truncated field");
    this.pos += length;
  }
  /** A length-delimited field as a sub-reader over the same buffer (no copy). */
  sub(): ProtoReader {
    const length = this.varint();
    const start = this.pos;
    if (start + length > this.end) throw new Error("truncated field");
    this.pos += length;
    return new ProtoReader(this.buf, start, start + length);
  }
  /** zigzag-decoded signed varint (sint64; exact up to 2^53). */
  svarint(): number {
    const n = this.varint();
    if (n < 0x80000000) return (n >>> 1) ^ -(n & 1);
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.skipBytes();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
  /** Calls `onField(fieldNumber, wireType)`; the callback must consume the value or return false to skip it. */
  fields(onField: (field: number, wireType: number) => boolean): void {
    while (!this.done) {
      const key = this.varint();
      const field = Math.floor(key / 8);
      const wireType = key & 7;
      if (!onField(field, wireType)) this.skip(wireType);
    }
  }
}

const COMPRESSION_FIELDS: Record<number, string> = { 4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd" };

/** A Blob's payload, decompressed. Only raw and zlib are supported (Geofabrik writes zlib). */
export function decodeBlob(blob: Buffer, fileName: string): Buffer {
  let raw: Buffer | null = null;
  let zlib: Buffer | null = null;
  let rawSize = 0;
  let unsupported: string | null = null;
  const reader = new ProtoReader(blob);
  reader.fields((field, wireType) => {
    if (field === 2 && wireType === 0) {
      rawSize = reader.varint();
      return true;
    }
    if (wireType !== 2) return false;
    if (field === 1) raw = reader.bytes();
    else if (field === 3) zlib = reader.bytes();
    else if (COMPRESSION_FIELDS[field]) {
      unsupported = COMPRESSION_FIELDS[field]!;
      reader.bytes();
    } else return false;
    return true;
  });
  if (raw) return raw;
  // Inflated into one buffer of the size the block declares (capped by the format's limit):
  // by default zlib fills 16 KB chunks and then copies them into one.
  if (zlib) return inflateSync(zlib, { chunkSize: Math.min(Math.max(rawSize, 1024), MAX_BLOB) });
  if (unsupported) {
    throw badRequest(
      `${fileName} uses ${unsupported}-compressed PBF blocks, which this importer cannot read (only zlib, as in Geofabrik extracts). ` +
        `Recompress it with zlib, e.g. \`osmium cat --output-format pbf,pbf_compression=zlib -o out.osm.pbf ${fileName}\`.`,
    );
  }
  throw badRequest(`${fileName} has a PBF block with no data`);
}

function decodeHeader(buf: Buffer): PbfHeader {
  const header: PbfHeader = { requiredFeatures: [], optionalFeatures: [], writingProgram: null, replicationTimestamp: null };
  const reader = new ProtoReader(buf);
  reader.fields((field, wireType) => {
    if (field === 4 && wireType === 2) header.requiredFeatures.push(reader.bytes().toString("utf8"));
    else if (field === 5 && wireType === 2) header.optionalFeatures.push(reader.bytes().toString("utf8"));
    else if (field === 16 && wireType === 2) header.writingProgram = reader.bytes().toString("utf8");
    else if (field === 32 && wireType === 0) header.replicationTimestamp = reader.varint() || null;
    else return false;
    return true;
  });
  return header;
}

function decodeBlobHeader(buf: Buffer): { type: string; dataSize: number } {
  let type = "";
  let dataSize = -1;
  const reader = new ProtoReader(buf);
  reader.fields((field, wireType) => {
    if (field === 1 && wireType === 2) type = reader.bytes().toString("utf8");
    else if (field === 3 && wireType === 0) dataSize = reader.varint();
    else return false;
    return true;
  });
  return { type, dataSize };
}

const SUPPORTED_FEATURES = new Set(["OsmSchema-V0.6", "DenseNodes"]);

/**
 * Stream the blocks of a PBF file, reading one block at a time (memory stays at one
 * block however large the file). Data blocks are returned decompressed.
 */
export async function* readPbfBlocks(path: string, fileName: string, signal?: AbortSignal): AsyncGenerator<PbfBlock> {
  for await (const block of readPbfBlobs(path, fileName, signal)) {
    yield block.type === "OSMData" ? { type: "OSMData", data: decodeBlob(block.blob, fileName), end: block.end } : block;
  }
}

/**
 * The blocks of a PBF file as `readPbfBlocks` reads them, but data blocks still compressed:
 * the decoding threads inflate them (inflating is a good part of a block's cost). Each
 * blob owns its memory, so it can be moved to another thread without a copy. With
 * `wanted`, a data block it refuses (by its index among the data blocks, from 0) is
 * passed over unread and not yielded: a later pass that knows which blocks hold what.
 */
export async function* readPbfBlobs(path: string, fileName: string, signal?: AbortSignal, wanted?: (dataIndex: number) => boolean): AsyncGenerator<PbfBlob> {
  const handle = await open(path, "r");
  try {
    let position = 0;
    let dataIndex = 0;
    const lengthBuf = Buffer.alloc(4);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(lengthBuf, 0, 4, position);
      if (bytesRead === 0) return;
      if (bytesRead < 4) throw badRequest(`${fileName} is truncated (at byte ${position})`);
      const headerLength = lengthBuf.readUInt32BE(0);
      if (headerLength === 0 || headerLength > MAX_HEADER) {
        throw badRequest(`${fileName} is not an OSM PBF file (bad block header length at byte ${position})`);
      }
      const headerBuf = Buffer.alloc(headerLength);
      if ((await handle.read(headerBuf, 0, headerLength, position + 4)).bytesRead < headerLength) {
        throw badRequest(`${fileName} is truncated (at byte ${position})`);
      }
      let blobHeader: { type: string; dataSize: number };
      try {
        blobHeader = decodeBlobHeader(headerBuf);
      } catch {
        throw badRequest(`${fileName} is not an OSM PBF file (unreadable block header at byte ${position})`);
      }
      if (blobHeader.dataSize < 0 || blobHeader.dataSize > MAX_BLOB) {
        throw badRequest(`${fileName} is not an OSM PBF file (bad block size at byte ${position})`);
      }
      if (blobHeader.type === "OSMData" && wanted && !wanted(dataIndex++)) {
        position += 4 + headerLength + blobHeader.dataSize;
        continue;
      }
      const blobBuf = Buffer.alloc(blobHeader.dataSize);
      if ((await handle.read(blobBuf, 0, blobHeader.dataSize, position + 4 + headerLength)).bytesRead < blobHeader.dataSize) {
        throw badRequest(`${fileName} is truncated (at byte ${position})`);
      }
      position += 4 + headerLength + blobHeader.dataSize;
      if (blobHeader.type === "OSMHeader") {
        const header = decodeHeader(decodeBlob(blobBuf, fileName));
        const missing = header.requiredFeatures.filter((f) => !SUPPORTED_FEATURES.has(f));
        if (missing.length) throw badRequest(`${fileName} needs features this importer does not support: ${missing.join(", ")}`);
        yield { type: "OSMHeader", header, end: position };
      } else if (blobHeader.type === "OSMData") {
        yield { type: "OSMData", blob: blobBuf, end: position };
      }
      // Unknown block types are skipped, as the format asks.
    }
  } finally {
    await handle.close();
  }
}

/** What every reader of a PrimitiveBlock needs first: its groups, its strings, its coordinate transform. */
export interface PrimitiveBlockFrame {
  groups: ProtoReader[];
  /** [start, end) of each string of the string table, in the block. */
  strings: Array<[number, number]>;
  latitude(value: number): number;
  longitude(value: number): number;
}

/**
 * The top level of a decompressed OSMData block. Coordinates as osm-pbf-parser-node
 * computes them (offset × 1e-9 + value / (1e9 / granularity)), so places keep the doubles
 * earlier imports stored.
 */
export function readPrimitiveBlockFrame(block: Buffer): PrimitiveBlockFrame {
  let granularity = 100;
  let latOffset = 0;
  let lonOffset = 0;
  const groups: ProtoReader[] = [];
  const strings: Array<[number, number]> = [];
  const top = new ProtoReader(block);
  top.fields((field, wireType) => {
    if (field === 1 && wireType === 2) {
      const table = top.sub();
      table.fields((f, w) => {
        if (f !== 1 || w !== 2) return false;
        const length = table.varint();
        strings.push([table.pos, table.pos + length]);
        table.pos += length;
        return true;
      });
    } else if (field === 2 && wireType === 2) groups.push(top.sub());
    else if (field === 17 && wireType === 0) granularity = top.varint();
    else if (field === 19 && wireType === 0) latOffset = top.varint();
    else if (field === 20 && wireType === 0) lonOffset = top.varint();
    else return false;
    return true;
  });
  // lat_offset/lon_offset are int64 (not zigzag): a negative one arrives as a huge varint.
  if (latOffset >= 2 ** 63) latOffset -= 2 ** 64;
  if (lonOffset >= 2 ** 63) lonOffset -= 2 ** 64;
  const divisor = granularity === 100 || granularity === 0 ? 1e7 : 1e9 / granularity;
  const latBase = latOffset * 1e-9;
  const lonBase = lonOffset * 1e-9;
  return { groups, strings, latitude: (value) => latBase + value / divisor, longitude: (value) => lonBase + value / divisor };
}

/**
 * The coordinates of every node in a decompressed OSMData block, without decoding tags,
 * metadata, ways or relations: the second pass of the PBF importer needs nothing else,
 * and skipping `keys_vals` and `denseinfo` is most of the decoding work (measured with
 * bench/import.js). Returns whether the block holds ways or relations (in a file sorted
 * by type, the nodes are then over).
 */
export function readNodeCoordinates(block: Buffer, onNode: (id: number, lat: number, lng: number) => void): { sawNonNodes: boolean } {
  const { groups, latitude, longitude } = readPrimitiveBlockFrame(block);
  let sawNonNodes = false;
  for (const group of groups) {
    group.fields((field, wireType) => {
      if (wireType !== 2) return false;
      if (field === 2) {
        const dense = group.sub();
        let ids: ProtoReader | undefined;
        let lats: ProtoReader | undefined;
        let lons: ProtoReader | undefined;
        dense.fields((f, w) => {
          if (w !== 2) return false;
          if (f === 1) ids = dense.sub();
          else if (f === 8) lats = dense.sub();
          else if (f === 9) lons = dense.sub();
          else return false;
          return true;
        });
        // The three packed columns decoded side by side (no arrays: 8,000 nodes a group, 40 million a country).
        let id = 0;
        let lat = 0;
        let lon = 0;
        while (ids && !ids.done) {
          id += ids.svarint();
          if (lats && !lats.done) lat += lats.svarint();
          if (lons && !lons.done) lon += lons.svarint();
          onNode(id, latitude(lat), longitude(lon));
        }
        return true;
      }
      if (field === 1) {
        const node = group.sub();
        let id = 0;
        let lat = 0;
        let lon = 0;
        node.fields((f, w) => {
          if (w !== 0 || (f !== 1 && f !== 8 && f !== 9)) return false;
          const value = node.svarint();
          if (f === 1) id = value;
          else if (f === 8) lat = value;
          else lon = value;
          return true;
        });
        onNode(id, latitude(lat), longitude(lon));
        return true;
      }
      if (field === 3 || field === 4) sawNonNodes = true;
      return false;
    });
  }
  return { sawNonNodes };
}
