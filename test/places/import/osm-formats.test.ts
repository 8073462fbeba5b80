import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createOSMStream } from "osm-pbf-parser-node";
import { deflateSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { parse as parsePrimitiveBlock } from "osm-pbf-parser-node";
import { OsmPbfImporter } from "../../../src/places/import/importers/osm-pbf.js";
import { readNodeCoordinates, readPbfBlocks } from "../../../src/places/import/importers/pbf-blocks.js";
import { readTaggedElements } from "../../../src/places/import/importers/pbf-tagged-elements.js";
import { KEPT_TAG_KEYS, MAPPED_ELEMENT_KEYS } from "../../../src/places/vocabulary/osm-tags.js";
import { osmNodeItem, osmRelationArea, osmWayArea } from "../../../src/places/import/importers/osm-elements.js";
import { OsmXmlImporter } from "../../../src/places/import/importers/osm-xml.js";
import { tempDir } from "../../helpers/data-dir.js";
import { collectImport, dataTest, helsinkiPbf, liechtensteinPbf, londonPbf, monacoPbf, munichPbf, near } from "../../helpers/places-data.js";


const collect = collectImport;

// --- a hand-made PBF: protobuf encoding of BlobHeader/Blob/HeaderBlock -------------
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}
const bytesField = (field: number, value: Buffer | string) => {
  const buf = typeof value === "string" ? Buffer.from(value) : value;
  return Buffer.concat([varint(field * 8 + 2), varint(buf.length), buf]);
};
const varintField = (field: number, value: number) => Buffer.concat([varint(field * 8), varint(value)]);
function block(type: string, blob: Buffer): Buffer {
  const header = Buffer.concat([bytesField(1, type), varintField(3, blob.length)]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return Buffer.concat([length, header, blob]);
}
const osmHeader = Buffer.concat([bytesField(4, "OsmSchema-V0.6"), bytesField(4, "DenseNodes"), varintField(32, 1774742400)]);

/** Tagged nodes and ways of a block as osm-pbf-parser-node reads them, keeping only the importer's tags. */
function libraryTaggedElements(data: Buffer) {
  const filter = { node: KEPT_TAG_KEYS, way: KEPT_TAG_KEYS, relation: false } as never;
  return (parsePrimitiveBlock(data, filter) as { type: string; id: number; lat?: number; lon?: number; refs?: number[]; tags?: Record<string, string> }[])
    .filter((e) => e.type !== "relation" && e.tags !== undefined)
    .map((e) => (e.type === "node" ? { type: "node", id: e.id, lat: e.lat, lon: e.lon, tags: e.tags } : { type: "way", id: e.id, tags: e.tags, refs: e.refs }));
}

/** The same through our first-pass decoder (only elements with one of `wantedKeys` when given). */
function ourTaggedElements(data: Buffer, wantedKeys?: ReadonlySet<string>) {
  const out: unknown[] = [];
  readTaggedElements(
    data,
    new Set(KEPT_TAG_KEYS),
    {
      node: (id, lat, lon, tags) => out.push({ type: "node", id, lat, lon, tags }),
      way: (id, tags, refs) => out.push({ type: "way", id, tags, refs: refs() }),
    },
    wantedKeys,
  );
  return out;
}

describe("OSM PBF importer", () => {
  dataTest("Liechtenstein: about 591 businesses, 193 with a website (../shared/data/README.md), dated from the header", async () => {
    const importer = new OsmPbfImporter(liechtensteinPbf());
    const { places, skipped } = await collect(importer.read({}));
    expect(near(places.length, 591)).toBe(true);
    expect(near(places.filter((p) => p.website).length, 193, 0.1)).toBe(true);
    expect(near(places.filter((p) => p.phone).length, 169, 0.1)).toBe(true);
    expect(near(places.filter((p) => p.email).length, 74, 0.1)).toBe(true);
    expect(skipped.infrastructure).toBeGreaterThan(1000);
    expect(importer.source()).toMatchObject({ kind: "osm", dataDate: "2026-03-29", licence: "ODbL-1.0" });
    expect(new Set(places.map((p) => p.placeId)).size).toBe(places.length);

    const toscana = places.find((p) => p.placeId === "osm:node:592633045");
    expect(toscana).toMatchObject({
      name: "Pizzeria Toscana",
      address: "Zollstrasse 82, 9494 Schaan",
      website: "https://www.pizzeriatoscana.li/",
      phone: "+423 373 95 09",
      categories: ["restaurant", "italian restaurant"],
      cuisine: "italian",
    });
    const figarissimo = places.find((p) => p.name === "Figarissimo");
    expect(figarissimo?.categories).toContain("hairdresser");
    expect(figarissimo?.city).toBe("Vaduz");
  });

  dataTest("a business mapped as a building outline is placed at the centroid of its nodes", async () => {
    const { places } = await collect(new OsmPbfImporter(liechtensteinPbf()).read({}));
    const museum = places.find((p) => p.placeId === "osm:way:28712148");
    expect(museum).toMatchObject({
      name: "Kunstmuseum Liechtenstein",
      address: "Städtle 32, 9490 Vaduz",
      website: "https://www.kunstmuseum.li/",
      email: "mail@kunstmuseum.li",
      categories: ["museum"],
    });
    // Independently: the library's own stream, the way's refs, the mean of their nodes.
    let refs: number[] = [];
    for await (const el of createOSMStream(liechtensteinPbf(), { withTags: false })) {
      const e = el as { type: string; id: number; refs?: number[] };
      if (e.type === "way" && e.id === 28712148) refs = [...new Set(e.refs)];
    }
    const wanted = new Set(refs);
    let lat = 0;
    let lng = 0;
    for await (const el of createOSMStream(liechtensteinPbf(), { withTags: false })) {
      const e = el as { type: string; id: number; lat: number; lon: number };
      if (e.type === "node" && wanted.has(e.id)) {
        lat += e.lat;
        lng += e.lon;
      }
    }
    expect(refs.length).toBeGreaterThan(3);
    expect(museum!.lat).toBeCloseTo(lat / refs.length, 9);
    expect(museum!.lng).toBeCloseTo(lng / refs.length, 9);
  }, 30_000);

  dataTest("a business mapped as a multipolygon relation is placed at the centroid of its outer ways' nodes; districts and squares are named places", async () => {
    const { places, localities } = await collect(new OsmPbfImporter(londonPbf()).read({}));
    const tavern = places.find((p) => p.placeId === "osm:relation:7037852");
    expect(tavern).toMatchObject({ name: "Punch Tavern", categories: ["pub", "bar"], tags: ["amenity=pub"] });
    // Independently: the library's stream, the relation's outer ways, the mean of their distinct nodes.
    let ways: number[] = [];
    for await (const el of createOSMStream(londonPbf(), { withTags: false })) {
      const e = el as { type: string; id: number; members?: Array<{ type: string; ref: number; role: string }> };
      if (e.type === "relation" && e.id === 7037852) ways = e.members!.filter((m) => m.type === "way" && m.role !== "inner").map((m) => m.ref);
    }
    const wayRefs = new Set<number>();
    for await (const el of createOSMStream(londonPbf(), { withTags: false })) {
      const e = el as { type: string; id: number; refs?: number[] };
      if (e.type === "way" && ways.includes(e.id)) for (const r of e.refs!) wayRefs.add(r);
    }
    let lat = 0;
    let lng = 0;
    let n = 0;
    for await (const el of createOSMStream(londonPbf(), { withTags: false })) {
      const e = el as { type: string; id: number; lat: number; lon: number };
      if (e.type === "node" && wayRefs.has(e.id)) (lat += e.lat, lng += e.lon, n++);
    }
    expect(ways.length).toBeGreaterThan(0);
    expect(tavern!.lat).toBeCloseTo(lat / n, 9);
    expect(tavern!.lng).toBeCloseTo(lng / n, 9);
    // Named places for the geocoder: London's boroughs (administrative relations) among them.
    expect(localities.find((l) => l.name === "City of Westminster")).toMatchObject({ id: "osm:relation:51781", kind: "city" });
    const munich = await collect(new OsmPbfImporter(munichPbf()).read({}));
    // Marienplatz is mapped as an area: a multipolygon relation with place=square.
    expect(munich.localities.filter((l) => l.name === "Marienplatz").map((l) => [l.kind, l.id])).toEqual([["square", "osm:relation:7366154"]]);
    expect(munich.places.find((p) => p.placeId === "osm:relation:1477955")).toMatchObject({ name: "Commerzbank", tags: ["amenity=bank"] });
    const helsinki = await collect(new OsmPbfImporter(helsinkiPbf()).read({}));
    const kamppi = helsinki.localities.find((l) => l.name === "Kamppi")!;
    expect(kamppi).toMatchObject({ kind: "district", id: "osm:relation:184714" });
    expect(kamppi.lat).toBeGreaterThan(60.16);
    expect(kamppi.lat).toBeLessThan(60.18);
  }, 60_000);

  test("the lean second-pass decoder gives every node the library gives, at the same coordinates", async () => {
    let nodes = 0;
    let sawWaysBlock = false;
    for await (const block of readPbfBlocks(monacoPbf(), "monaco")) {
      if (block.type !== "OSMData") continue;
      const expected = (parsePrimitiveBlock(block.data, { node: false, way: false, relation: false } as never) as { type: string; id: number; lat: number; lon: number }[])
        .filter((e) => e.type === "node");
      const got: [number, number, number][] = [];
      const { sawNonNodes } = readNodeCoordinates(block.data, (id, lat, lng) => got.push([id, lat, lng]));
      expect(sawNonNodes).toBe(expected.length === 0);
      sawWaysBlock ||= sawNonNodes;
      expect(got.map((g) => g[0])).toEqual(expected.map((e) => e.id));
      let worst = 0;
      for (let i = 0; i < got.length; i++) {
        worst = Math.max(worst, Math.abs(got[i]![1] - expected[i]!.lat), Math.abs(got[i]![2] - expected[i]!.lon));
      }
      expect(worst).toBeLessThan(1e-9);
      nodes += got.length;
    }
    expect(nodes).toBeGreaterThan(10_000);
    expect(sawWaysBlock).toBe(true);
  });

  dataTest("the first-pass decoder gives exactly the library's tagged nodes and ways (kept tags, refs, coordinates to the bit) on every PBF in ../shared/data", async () => {
    let compared = 0;
    for (const file of [liechtensteinPbf(), monacoPbf(), munichPbf(), helsinkiPbf(), londonPbf()]) {
      for await (const block of readPbfBlocks(file, file)) {
        if (block.type !== "OSMData") continue;
        const expected = libraryTaggedElements(block.data);
        expect(ourTaggedElements(block.data)).toEqual(expected);
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(20_000);
  }, 60_000);

  dataTest("with MAPPED_ELEMENT_KEYS the decoder drops exactly the elements the mapping makes nothing of (kept tags, none of those keys)", async () => {
    const mapped = new Set(MAPPED_ELEMENT_KEYS);
    let dropped = 0;
    let reported = 0;
    for (const file of [liechtensteinPbf(), monacoPbf(), londonPbf()]) {
      for await (const block of readPbfBlocks(file, file)) {
        if (block.type !== "OSMData") continue;
        const all = libraryTaggedElements(block.data) as Array<{ type: string; id: number; tags: Record<string, string> }>;
        const wanted = all.filter((e) => Object.keys(e.tags).some((k) => mapped.has(k)));
        expect(ourTaggedElements(block.data, mapped)).toEqual(wanted);
        reported += wanted.length;
        for (const e of all.filter((x) => !wanted.includes(x))) {
          dropped++;
          expect(e.type === "node" ? osmNodeItem(e.id, 47, 9, e.tags, undefined) : osmWayArea(e.id, () => [1, 2], e.tags)).toBeNull();
          expect(osmRelationArea(e.id, () => [], { ...e.tags, type: "multipolygon" })).toBeNull();
        }
      }
    }
    expect(dropped).toBeGreaterThan(1000);
    expect(reported).toBeGreaterThan(1000);
  }, 60_000);

  test("the first-pass decoder reads plain (non-dense) nodes, unpacked repeated fields, another granularity and negative offsets as the library does", () => {
    const zigzag = (n: number) => (n < 0 ? -2 * n - 1 : 2 * n);
    const packed = (field: number, values: number[], signed = false) => bytesField(field, Buffer.concat(values.map((v) => varint(signed ? zigzag(v) : v))));
    const strings = bytesField(1, Buffer.concat(["", "name", "Café Zürich", "amenity", "cafe", "highway", "residential", "note", "x", "shop", "bakery"].map((t) => bytesField(1, t))));
    // A plain node with unpacked keys/vals; a dense group with deltas and keys_vals; a way with unpacked refs.
    const plainNode = bytesField(1, Buffer.concat([varintField(1, zigzag(-7)), varintField(2, 1), varintField(2, 3), varintField(3, 2), varintField(3, 4), varintField(8, zigzag(-123456)), varintField(9, zigzag(987654))]));
    const dense = bytesField(2, Buffer.concat([packed(1, [100, 1, 1], true), packed(8, [5000000, -10, 20], true), packed(9, [-3000000, 7, -7], true), packed(10, [9, 10, 1, 2, 0, 0, 3, 4, 7, 8, 0])]));
    const way = bytesField(3, Buffer.concat([varintField(1, 555), packed(2, [5, 1]), packed(3, [6, 2]), varintField(8, zigzag(100)), varintField(8, zigzag(1)), varintField(8, zigzag(-1))]));
    const relation = bytesField(4, Buffer.concat([varintField(1, 9), packed(2, [1]), packed(3, [2])]));
    const negative = (n: number) => n + 2 ** 64; // int64 as an unsigned varint
    const data = Buffer.concat([strings, bytesField(2, plainNode), bytesField(2, dense), bytesField(2, Buffer.concat([way, relation])), varintField(17, 1000), varintField(19, negative(-2_000_000_000)), varintField(20, 3_000_000_000)]);
    const expected = libraryTaggedElements(data);
    expect(expected.map((e) => `${e.type}:${e.id}`)).toEqual(["node:-7", "node:100", "node:102", "way:555"]);
    expect(ourTaggedElements(data)).toEqual(expected);
  });

  test("Monaco: about 584 businesses", async () => {
    const { places } = await collect(new OsmPbfImporter(monacoPbf()).read({}));
    expect(near(places.length, 584)).toBe(true);
    expect(near(places.filter((p) => p.website).length, 198, 0.1)).toBe(true);
  });

  dataTest("--bbox keeps only places inside the box", async () => {
    const box = { minLng: 9.5, minLat: 47.13, maxLng: 9.53, maxLat: 47.15 };
    const { places, skipped } = await collect(new OsmPbfImporter(liechtensteinPbf()).read({ bbox: box }));
    expect(places.length).toBeGreaterThan(20);
    expect(skipped["outside bbox"]).toBeGreaterThan(300);
    for (const p of places) {
      expect(p.lat).toBeGreaterThanOrEqual(box.minLat);
      expect(p.lng).toBeLessThanOrEqual(box.maxLng);
    }
  });

  test("lz4-compressed blocks are refused with a message that names lz4", async () => {
    const file = join(tempDir(), "lz4-2024-01-01.osm.pbf");
    const lz4Blob = Buffer.concat([varintField(2, 100), bytesField(6, Buffer.from("not really lz4"))]);
    writeFileSync(file, Buffer.concat([block("OSMHeader", bytesField(1, osmHeader)), block("OSMData", lz4Blob)]));
    await expect(collect(new OsmPbfImporter(file).read({}))).rejects.toThrow(/lz4-compressed PBF blocks.*only zlib/);
  });

  test("zstd blocks are refused too, and a zlib header block is read (data date from its timestamp)", async () => {
    const file = join(tempDir(), "zstd.osm.pbf");
    const zlibHeader = Buffer.concat([varintField(2, osmHeader.length), bytesField(3, deflateSync(osmHeader))]);
    writeFileSync(file, Buffer.concat([block("OSMHeader", zlibHeader), block("OSMData", bytesField(7, Buffer.from("zz")))]));
    const importer = new OsmPbfImporter(file);
    await expect(collect(importer.read({}))).rejects.toThrow(/zstd-compressed/);
    expect(importer.source().dataDate).toBe("2026-03-29");
  });

  test("a file that is not a PBF is refused without a crash", async () => {
    const file = join(tempDir(), "fake.osm.pbf");
    writeFileSync(file, "<osm></osm> this is XML, not PBF");
    await expect(collect(new OsmPbfImporter(file).read({}))).rejects.toThrow(/not an OSM PBF file/);
  });
});

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6" generator="test" timestamp="2025-05-06T00:00:00Z">
  <node id="1" lat="48.1370" lon="11.5750"><tag k="name" v="Zahnarztpraxis Dr. Huber"/><tag k="amenity" v="dentist"/><tag k="addr:city" v="München"/><tag k="addr:postcode" v="80331"/><tag k="website" v="zahnarzt-huber.de"/></node>
  <node id="2" lat="48.1000" lon="11.5000"/>
  <node id="3" lat="48.1002" lon="11.5000"/>
  <node id="4" lat="48.1002" lon="11.5004"/>
  <node id="5" lat="48.1380" lon="11.5760"><tag k="amenity" v="bench"/><tag k="name" v="Bank"/></node>
  <way id="10"><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="2"/><tag k="shop" v="bakery"/><tag k="name" v="Bäckerei Rischart"/></way>
  <way id="11"><nd ref="99"/><tag k="shop" v="books"/><tag k="name" v="Nowhere Books"/></way>
  <node id="20" lat="48.2000" lon="11.6000"/>
  <node id="21" lat="48.2004" lon="11.6000"/>
  <node id="22" lat="48.2004" lon="11.6006"/>
  <node id="23" lat="48.3000" lon="11.7000"><tag k="place" v="square"/><tag k="name" v="Hofplatz"/></node>
  <way id="30"><nd ref="20"/><nd ref="21"/><nd ref="22"/></way>
  <way id="31"><nd ref="22"/><nd ref="20"/></way>
  <relation id="40"><member type="way" ref="30" role="outer"/><member type="way" ref="31" role="outer"/><tag k="type" v="multipolygon"/><tag k="amenity" v="bank"/><tag k="name" v="Raiffeisenbank"/></relation>
  <relation id="41"><member type="way" ref="30" role="outer"/><tag k="type" v="multipolygon"/><tag k="amenity" v="bank"/></relation>
</osm>`;

describe("OSM XML importer", () => {
  test(".osm: nodes, ways at the centroid of their distinct nodes, skips with reasons, date from <osm timestamp>", async () => {
    const file = join(tempDir(), "area.osm");
    writeFileSync(file, XML);
    const importer = new OsmXmlImporter(file);
    const { places, skipped } = await collect(importer.read({}));
    const { localities } = await collect(new OsmXmlImporter(file).read({}));
    expect(places.map((p) => p.placeId).sort()).toEqual(["osm:node:1", "osm:relation:40", "osm:way:10"]);
    const bakery = places.find((p) => p.placeId === "osm:way:10")!;
    expect(bakery.lat).toBeCloseTo((48.1 + 48.1002 + 48.1002) / 3, 9);
    expect(bakery.lng).toBeCloseTo((11.5 + 11.5 + 11.5004) / 3, 9);
    expect(places.find((p) => p.placeId === "osm:node:1")).toMatchObject({ website: "https://zahnarzt-huber.de/", categories: ["dentist"], address: "80331 München" });
    // A multipolygon relation at the centroid of its outer ways' distinct nodes.
    const bank = places.find((p) => p.placeId === "osm:relation:40")!;
    expect(bank).toMatchObject({ name: "Raiffeisenbank", tags: ["amenity=bank"] });
    expect(bank.lat).toBeCloseTo((48.2 + 48.2004 + 48.2004) / 3, 9);
    expect(bank.lng).toBeCloseTo((11.6 + 11.6 + 11.6006) / 3, 9);
    expect(localities).toEqual([{ id: "osm:node:23", name: "Hofplatz", kind: "square", lat: 48.3, lng: 11.7 }]);
    expect(skipped).toEqual({ infrastructure: 1, "no coordinates": 1, unnamed: 1 });
    expect(importer.source().dataDate).toBe("2025-05-06");
  });

  test.each(["system", "javascript"] as const)(".osm.bz2 is decompressed as a stream (%s decoder) and gives the same places", async (decoder) => {
    const dir = tempDir();
    const file = join(dir, "area.osm.bz2");
    // Padded past several read chunks, with multi-byte characters among them.
    const shops = Array.from({ length: 3000 }, (_, i) => `<node id="${900 + i}" lat="48.1" lon="11.5"><tag k="name" v="Grüße aus München ${i}"/><tag k="shop" v="kiosk"/></node>\n`);
    writeFileSync(file, execFileSync("bzip2", ["-c"], { input: XML.replace("</osm>", `${shops.join("")}</osm>`) }));
    const { places } = await collect(new OsmXmlImporter(file, { bzip2Decoder: decoder }).read({}));
    const names = places.map((p) => p.name);
    expect(names).toHaveLength(3003);
    expect(names).toContain("Bäckerei Rischart");
    expect(names).toContain("Zahnarztpraxis Dr. Huber");
    expect(names.filter((n) => n.startsWith("Grüße aus München "))).toHaveLength(3000);
  });

  test.each(["system", "javascript"] as const)("a corrupt or truncated .osm.bz2 is a clear error naming the file (%s decoder)", async (decoder) => {
    const dir = tempDir();
    const notBzip2 = join(dir, "plain.osm.bz2");
    writeFileSync(notBzip2, XML);
    await expect(collect(new OsmXmlImporter(notBzip2, { bzip2Decoder: decoder }).read({}))).rejects.toThrow(/plain\.osm\.bz2 is not a readable bzip2 file/);
    const truncated = join(dir, "cut.osm.bz2");
    const whole = execFileSync("bzip2", ["-c"], { input: XML.repeat(20) });
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
    await expect(collect(new OsmXmlImporter(truncated, { bzip2Decoder: decoder }).read({}))).rejects.toThrow(/cut\.osm\.bz2 is not (a readable bzip2 file|well-formed OSM XML)/);
  });

  test("malformed XML is a clear error naming the file", async () => {
    const file = join(tempDir(), "broken.osm");
    writeFileSync(file, '<osm><node id="1" lat="1" lon="1"><tag k="name" v="x"></osm>');
    await expect(collect(new OsmXmlImporter(file).read({}))).rejects.toThrow(/broken\.osm is not well-formed OSM XML/);
  });
});
