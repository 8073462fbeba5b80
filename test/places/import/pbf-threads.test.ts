import { createOSMStream } from "osm-pbf-parser-node";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { isAppError } from "../../../src/core/errors.js";
import { decodeItems, decodeUnplacedAt, encodeItems, encodeUnplaced } from "../../../src/places/import/importers/import-item-codec.js";
import { OsmElementCollector } from "../../../src/places/import/importers/osm-elements.js";
import { OsmPbfImporter } from "../../../src/places/import/importers/osm-pbf.js";
import { KEPT_TAG_KEYS, osmUnplacedItem, placeAt } from "../../../src/places/vocabulary/osm-tags.js";
import type { ImportItem } from "../../../src/places/import/place-record.js";
import { tempDir } from "../../helpers/data-dir.js";
import { dataTest, helsinkiPbf, liechtensteinPbf, londonPbf, monacoPbf, munichPbf } from "../../helpers/places-data.js";

type LibraryElement = { type: string; id: number; lat: number; lon: number; tags?: Record<string, string>; refs?: number[]; members?: Array<{ type: "node" | "way" | "relation"; ref: number; role: string }> };
const KEPT = new Set(KEPT_TAG_KEYS);

/**
 * The items of a PBF file made without our decoders or threads: osm-pbf-parser-node's
 * full decoding of every element, fed in file order to the collector's per-element API
 * (as the XML importer does), in three plain passes.
 */
async function libraryItems(file: string): Promise<ImportItem[]> {
  const elements = () => createOSMStream(file, { withTags: true }) as AsyncGenerator<LibraryElement>;
  const collector = new OsmElementCollector(undefined);
  const items: ImportItem[] = [];
  for await (const e of elements()) {
    const tags = e.tags && Object.fromEntries(Object.entries(e.tags).filter(([k]) => KEPT.has(k)));
    const kept = tags && Object.keys(tags).length > 0 ? tags : undefined;
    const item = e.type === "node" ? collector.node(e.id, e.lat, e.lon, kept) : e.type === "way" ? collector.way(e.id, e.refs!, kept) : collector.relation(e.id, () => e.members!, kept);
    if (item) items.push(item);
  }
  if (collector.needsMemberWays) for await (const e of elements()) if (e.type === "way" && collector.wantsWay(e.id)) collector.memberWay(e.id, e.refs!);
  for await (const e of elements()) if (e.type === "node") collector.coordinates(e.id, e.lat, e.lon);
  items.push(...collector.areas());
  return items;
}

async function importerItems(file: string, threads: number): Promise<ImportItem[]> {
  const items: ImportItem[] = [];
  for await (const batch of new OsmPbfImporter(file, { threads }).readBatches({})) {
    expect(batch.length).toBeGreaterThan(0);
    items.push(...batch);
  }
  return items;
}

describe("the PBF importer's decoding threads", () => {
  dataTest("give exactly the items of an independent reading (the library's elements through the collector), in the same order, on every PBF in ../shared/data; inline too", async () => {
    let places = 0;
    for (const file of [liechtensteinPbf(), monacoPbf(), munichPbf(), helsinkiPbf(), londonPbf()]) {
      const expected = await libraryItems(file);
      expect(await importerItems(file, 2)).toEqual(expected);
      expect(await importerItems(file, 0)).toEqual(expected);
      places += expected.filter((i) => i.kind === "place").length;
    }
    // Ways and relations among them (placed at their nodes' centroid after the last pass).
    expect(places).toBeGreaterThan(5000);
  }, 120_000);

  dataTest("the member-ways and node passes read only the blocks that hold ways and nodes (what pass 1 learnt), each once", async () => {
    const blocks: Record<number, number[]> = { 1: [], 2: [], 3: [] };
    for await (const _ of new OsmPbfImporter(liechtensteinPbf(), { threads: 2 }).readBatches({ onRead: ({ pass, bytes }) => blocks[pass]!.push(bytes) })) void _;
    // Liechtenstein's 52 data blocks: ways are in a few of them, nodes in most.
    expect(blocks[1]!.length).toBeGreaterThan(40);
    expect(blocks[2]!.length).toBeGreaterThan(0);
    expect(blocks[2]!.length).toBeLessThan(blocks[1]!.length / 4);
    expect(blocks[3]!.length).toBeLessThan(blocks[1]!.length);
    for (const pass of [2, 3]) {
      expect(new Set(blocks[pass]).size).toBe(blocks[pass]!.length);
      for (const end of blocks[pass]!) expect(blocks[1]).toContain(end);
    }
  });

  test("a block a thread cannot read fails the import with the same error class and message as inline", async () => {
    const file = join(tempDir(), "lz4-2024-01-01.osm.pbf");
    const varint = (n: number) => Buffer.from(n < 128 ? [n] : [(n & 0x7f) | 0x80, n >> 7]);
    const field = (n: number, value: Buffer) => Buffer.concat([varint(n * 8 + 2), varint(value.length), value]);
    const block = (type: string, blob: Buffer) => {
      const header = Buffer.concat([field(1, Buffer.from(type)), varint(3 * 8), varint(blob.length)]);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(header.length);
      return Buffer.concat([length, header, blob]);
    };
    const osmHeader = field(1, Buffer.concat([field(4, Buffer.from("OsmSchema-V0.6")), field(4, Buffer.from("DenseNodes"))]));
    writeFileSync(file, Buffer.concat([block("OSMHeader", osmHeader), block("OSMData", Buffer.concat([varint(16), varint(100), field(6, Buffer.from("not lz4"))]))]));
    for (const threads of [1, 0]) {
      const failure = await importerItems(file, threads).then(() => null, (err: unknown) => err);
      expect(isAppError(failure)).toBe(true);
      expect((failure as Error).message).toMatch(/lz4-compressed PBF blocks/);
    }
  });

  test("an import stopped by its signal (between blocks, while threads work) rejects with the abort reason", async () => {
    const controller = new AbortController();
    const reading = (async () => {
      for await (const _ of new OsmPbfImporter(monacoPbf(), { threads: 2 }).read({ signal: controller.signal, onRead: () => controller.abort(new Error("stopped by the test")) })) void _;
    })();
    await expect(reading).rejects.toThrow("stopped by the test");
  });
});

test("a reader that stops early, blocks still being inflated in the threads, ends them cleanly (Node aborts the process if a thread is terminated inside zlib)", async () => {
  for (let round = 0; round < 10; round++) {
    let batches = 0;
    for await (const _ of new OsmPbfImporter(monacoPbf(), { threads: 2 }).readBatches({})) if (++batches === 1 + (round % 3)) break;
    expect(batches).toBe(1 + (round % 3));
  }
});

describe("import-item-codec", () => {
  test("round-trips every item of a real extract, fields in the same order", async () => {
    const items = await importerItems(monacoPbf(), 0);
    const decoded = decodeItems(encodeItems(items));
    expect(decoded).toEqual(items);
    expect(decoded.map((i) => JSON.stringify(i))).toEqual(items.map((i) => JSON.stringify(i)));
    expect(decodeItems(encodeItems([]))).toEqual([]);
  });

  test("values the token form cannot carry fall back to JSON; -0, socials in their own order, a skip's detail survive", () => {
    const unplaced = osmUnplacedItem("way", 7, { shop: "bakery", name: "Bäckerei\u0000 Nul", website: "https://www.instagram.com/baeckerei", "contact:facebook": "baeckerei" });
    if (unplaced.kind !== "unplaced") throw new Error("expected a place");
    expect(Object.keys(unplaced.place.socials!)).toEqual(["facebook", "instagram"]);
    const place = placeAt(unplaced.place, -0, 7.5);
    const items: ImportItem[] = [
      { kind: "place", place },
      { kind: "skip", reason: "invalid row", detail: "row 3: lat" },
      { kind: "skip", reason: "unnamed" },
      { kind: "locality", locality: { id: "osm:node:1", name: "\u0001", kind: "city", lat: 1.5, lng: -0 } },
    ];
    const encoded = encodeItems(items);
    expect(encoded.text.startsWith("J")).toBe(true);
    expect(encoded.numbers.length).toBe(0);
    expect(decodeItems(encoded)).toEqual(JSON.parse(JSON.stringify(items)));
    // Without the NUL and the lone \u0001: tokens, and -0 stays -0.
    const clean = items.slice(0, 3).map((i) => (i.kind === "place" ? { ...i, place: { ...i.place, name: "Bäckerei Nul" } } : i));
    const tokens = encodeItems(clean);
    expect(tokens.numbers.length).toBeGreaterThan(0);
    const back = decodeItems(tokens);
    expect(back).toEqual(clean);
    expect(Object.is((back[0] as Extract<ImportItem, { kind: "place" }>).place.lat, -0)).toBe(true);
    expect(Object.keys((back[0] as Extract<ImportItem, { kind: "place" }>).place.socials!)).toEqual(["facebook", "instagram"]);
    // An unplaced place comes back at its point as placeAt makes it (address from the point when its tags gave none).
    const atPoint = (p: typeof unplaced.place) => JSON.stringify(decodeUnplacedAt(encodeUnplaced(p), 47.1, -0));
    expect(atPoint(unplaced.place)).toBe(JSON.stringify(placeAt(unplaced.place, 47.1, -0)));
    const plain = { ...unplaced.place, name: "plain" };
    expect(atPoint(plain)).toBe(JSON.stringify(placeAt(plain, 47.1, -0)));
    const addressed = { ...plain, address: "Main St 1", rating: 4.5, tags: undefined, socials: null, cuisine: "pizza" };
    expect(atPoint(addressed)).toBe(JSON.stringify(placeAt(addressed, 47.1, -0)));
    expect(decodeUnplacedAt(encodeUnplaced(addressed), 47.1, -0).tags).toBeUndefined();
  });
});
