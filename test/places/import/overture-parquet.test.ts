import { asyncBufferFromFile, parquetMetadataAsync } from "hyparquet";
import { describe, expect, test } from "vitest";
import {
  OvertureParquetImporter,
  overtureRowToItem,
  pointFromGeometry,
  rowGroupOutside,
} from "../../../src/places/import/importers/overture-parquet.js";
import { collectImport, dataTest, near, overtureSample } from "../../helpers/places-data.js";

const collect = collectImport;

describe("Overture places GeoParquet importer", () => {
  dataTest("the pandas-written sample (no geo metadata, raw WKB, extra `open` column, null-typed emails) imports all 3,425 places", async () => {
    const importer = new OvertureParquetImporter(overtureSample());
    const { places } = await collect(importer.read({}));
    expect(places).toHaveLength(3425);
    expect(near(places.filter((p) => p.website).length, 3056, 0.1)).toBe(true);
    expect(near(places.filter((p) => p.phone).length, 3301, 0.05)).toBe(true);
    expect(places.filter((p) => p.email)).toHaveLength(0);
    expect(near(places.filter((p) => p.socials).length, 2815, 0.1)).toBe(true);
    expect(importer.source()).toMatchObject({ kind: "overture", licence: "CDLA-Permissive-2.0", dataDate: "2025-02-24" });

    const lab = places.find((p) => p.placeId === "overture:08f266694b8dd34103db5d8f268c8bfe");
    expect(lab).toMatchObject({
      name: "SNT Biotech Lab",
      address: "24119 W Riverwalk Ct, Plainfield, IL 60544-8102",
      city: "Plainfield",
      postcode: "60544-8102",
      country: "US",
      website: "http://www.sntbiotech.com/",
      phone: "+13127662326",
      socials: { facebook: "https://www.facebook.com/109093534897634" },
      categories: ["pharmacy", "health and medical", "laboratory testing"],
    });
    expect(lab!.lat).toBeCloseTo(41.61867, 4);
    expect(lab!.lng).toBeCloseTo(-88.2061, 4);
    expect(JSON.parse(lab!.provenance!)).toEqual([{ dataset: "meta", recordId: "109093534897634" }]);
  });

  dataTest("--bbox keeps one area: exactly the places whose point lies inside", async () => {
    const { places: all } = await collect(new OvertureParquetImporter(overtureSample()).read({}));
    const box = { minLng: -91.6, minLat: 36.9, maxLng: -87.0, maxLat: 42.6 }; // Illinois
    const inside = all.filter((p) => p.lat >= box.minLat && p.lat <= box.maxLat && p.lng >= box.minLng && p.lng <= box.maxLng);
    const { places, skipped } = await collect(new OvertureParquetImporter(overtureSample()).read({ bbox: box }));
    expect(inside.length).toBeGreaterThan(20);
    expect(places.map((p) => p.placeId).sort()).toEqual(inside.map((p) => p.placeId).sort());
    expect(skipped["outside bbox"]).toBe(3425 - inside.length);
  });

  dataTest("row groups whose bbox statistics lie outside the box are skipped unread", async () => {
    const metadata = await parquetMetadataAsync(await asyncBufferFromFile(overtureSample()));
    // The sample's single row group spans the USA: a box in Europe is provably outside it.
    expect(rowGroupOutside(metadata, 0, { minLng: 5, minLat: 45, maxLng: 10, maxLat: 48 })).toBe(true);
    expect(rowGroupOutside(metadata, 0, { minLng: -91.6, minLat: 36.9, maxLng: -87, maxLat: 42.6 })).toBe(false);
    const importer = new OvertureParquetImporter(overtureSample());
    const { places, skipped } = await collect(importer.read({ bbox: { minLng: 5, minLat: 45, maxLng: 10, maxLat: 48 } }));
    expect(places).toHaveLength(0);
    expect(skipped["outside bbox"]).toBe(3425);
    expect(importer.skippedRowGroups).toBe(1);
  });

  test("geometry is read from raw WKB (either byte order, EWKB with SRID) and from GeoJSON (files with geo metadata)", () => {
    const wkb = (little: boolean, srid = false) => {
      const buf = Buffer.alloc(srid ? 25 : 21);
      buf.writeUInt8(little ? 1 : 0, 0);
      const write32 = (v: number, at: number) => (little ? buf.writeUInt32LE(v, at) : buf.writeUInt32BE(v, at));
      const writeD = (v: number, at: number) => (little ? buf.writeDoubleLE(v, at) : buf.writeDoubleBE(v, at));
      write32(srid ? 0x20000001 : 1, 1);
      if (srid) write32(4326, 5);
      writeD(9.52, srid ? 9 : 5);
      writeD(47.14, srid ? 17 : 13);
      return new Uint8Array(buf);
    };
    expect(pointFromGeometry(wkb(true))).toEqual({ lat: 47.14, lng: 9.52 });
    expect(pointFromGeometry(wkb(false))).toEqual({ lat: 47.14, lng: 9.52 });
    expect(pointFromGeometry(wkb(true, true))).toEqual({ lat: 47.14, lng: 9.52 });
    expect(pointFromGeometry({ type: "Point", coordinates: [9.52, 47.14] })).toEqual({ lat: 47.14, lng: 9.52 });
    expect(pointFromGeometry({ type: "Polygon", coordinates: [] })).toBeNull();
  });

  test("a newer-release row (taxonomy, bbox only, emails, closed status) maps too", () => {
    const row = {
      id: "abc",
      bbox: { xmin: 9.5, xmax: 9.52, ymin: 47.1, ymax: 47.12 },
      names: { primary: "Zahnarzt Vaduz" },
      taxonomy: { primary: "general_dentistry", alternates: ["orthodontist"] },
      websites: ["instagram.com/zahnarzt", "zahnarzt.li"],
      emails: ["praxis@zahnarzt.li"],
      phones: ["garbage", "+423 232 11 11"],
      addresses: [{ locality: "Vaduz", postcode: "9490", country: "LI" }],
      sources: [{ dataset: "OpenStreetMap", record_id: "n1", license: "ODbL-1.0" }],
    };
    const item = overtureRowToItem(row);
    expect(item.kind).toBe("place");
    if (item.kind !== "place") return;
    expect(item.place).toMatchObject({
      placeId: "overture:abc",
      lat: 47.11,
      website: "https://zahnarzt.li/",
      email: "praxis@zahnarzt.li",
      phone: "+423 232 11 11",
      socials: { instagram: "https://instagram.com/zahnarzt" },
      address: "Vaduz, 9490",
      categories: ["dentist", "orthodontist"],
    });
    expect(item.place.lng).toBeCloseTo(9.51, 9);
    expect(JSON.parse(item.place.provenance!)).toEqual([{ dataset: "OpenStreetMap", recordId: "n1", license: "ODbL-1.0" }]);
    expect(overtureRowToItem({ ...row, operating_status: "permanently_closed" })).toEqual({ kind: "skip", reason: "closed" });
  });
});
