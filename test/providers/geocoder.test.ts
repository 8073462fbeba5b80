import { describe, expect, it } from "vitest";
import { normaliseKey } from "../../src/core/text.js";
import { Geocoder } from "../../src/providers/geocode/geocoder.js";
import { parseQualifier } from "../../src/providers/geocode/regions.js";
import { LocalPlaceProvider } from "../../src/providers/places/local.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, VADUZ, vaduzPlaces } from "../helpers/places.js";

const signal = new AbortController().signal;

function geocoder() {
  const instance = createTestInstance();
  const db = instance.services.deps.db;
  insertPlaces(db, vaduzPlaces());
  insertLocality(db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 300 });
  insertLocality(db, { kind: "city", key: "schaan", name: "Schaan", country: "LI", lat: 47.165, lng: 9.51, placeCount: 200 });
  insertLocality(db, { kind: "city", key: "munchen", name: "München", country: "DE", lat: 48.137, lng: 11.575, placeCount: 9000 });
  insertLocality(db, { kind: "postcode", key: "9490", name: "9490", city: "Vaduz", country: "LI", lat: 47.139, lng: 9.522, placeCount: 280 });
  insertLocality(db, { kind: "postcode", key: "9494", name: "9494", city: "Schaan", country: "LI", lat: 47.166, lng: 9.509, placeCount: 190 });
  return { geo: new Geocoder(db), provider: new LocalPlaceProvider(db) };
}

describe("normaliseKey", () => {
  it("lower-cases, folds diacritics, collapses and trims whitespace", () => {
    expect(normaliseKey("  München   Süd ")).toBe("munchen sud");
    expect(normaliseKey("CAFÉ\tWolf")).toBe("cafe wolf");
  });
});

describe("country and state qualifiers", () => {
  it("understands country names in several languages, ISO codes and US states", () => {
    expect(parseQualifier("Liechtenstein")).toEqual({ country: "LI" });
    expect(parseQualifier("FR")).toEqual({ country: "FR" });
    expect(parseQualifier("Deutschland")).toEqual({ country: "DE" });
    expect(parseQualifier("Texas")).toEqual({ country: "US", admin: "TX" });
    expect(parseQualifier("usa")).toEqual({ country: "US" });
    expect(parseQualifier("Atlantis")).toBeUndefined();
  });
});

describe("geocoder", () => {
  it("resolves city names of the locality index, accents or not", async () => {
    const { geo } = geocoder();
    expect(geo.resolveText("Schaan")).toEqual({ center: { lat: 47.165, lng: 9.51 }, source: "locality" });
    expect(geo.resolveText("München")?.center).toEqual({ lat: 48.137, lng: 11.575 });
    expect(geo.resolveText("munchen")?.source).toBe("locality");
  });

  it("prefers the postcode, with or without the city", async () => {
    const { geo } = geocoder();
    expect(geo.resolveText("9490 Vaduz")).toEqual({ center: { lat: 47.139, lng: 9.522 }, source: "postcode" });
    expect(geo.resolveText("9494")).toEqual({ center: { lat: 47.166, lng: 9.509 }, source: "postcode" });
  });

  it("falls back to the gazetteer with country names and codes, population breaking ties", async () => {
    const { geo } = geocoder();
    const vaduz = geo.resolveText("Vaduz, Liechtenstein");
    // The locality index wins for Vaduz (it is imported); a city it lacks comes from GeoNames.
    expect(vaduz?.source).toBe("locality");
    const paris = geo.resolveText("Paris, FR")!;
    expect(paris.source).toBe("gazetteer");
    expect(paris.center.lat).toBeCloseTo(48.85, 1);
    expect(paris.center.lng).toBeCloseTo(2.35, 1);
    for (const text of ["Paris, Texas", "Paris, US", "paris, tx"]) {
      const tx = geo.resolveText(text)!;
      expect(tx.center.lat).toBeCloseTo(33.66, 1);
      expect(tx.center.lng).toBeCloseTo(-95.55, 1);
    }
    // Without a country, the most populous Paris.
    expect(geo.resolveText("Paris")!.center.lng).toBeCloseTo(2.35, 1);
    expect(geo.resolveText("Triesenberg, LI")!.center.lat).toBeCloseTo(47.118, 1);
  });

  it("takes a small town without a country only near the imported places (the confidence rule)", async () => {
    const { geo, provider } = geocoder();
    // Atlantis, ZA: 67,000 people, 8,000 km from the imported places.
    expect(geo.resolveText("Atlantis")).toBeUndefined();
    expect(geo.resolveText("Atlantis, ZA")?.source).toBe("gazetteer");
    // A town that size near the data is taken (Buchs SG, 12 km from Vaduz).
    expect(geo.resolveText("Buchs")?.center.lat).toBeCloseTo(47.17, 1);
    await expect(geo.resolve({ location: "Atlantis" }, provider, signal)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/did you mean "Atlantis, ZA"\?/),
    });
  });

  it("explicit coordinates win; one without the other is a 400 naming the missing one", async () => {
    const { geo, provider } = geocoder();
    expect(await geo.resolve({ location: "Paris, FR", lat: 1, lng: 2 }, provider, signal)).toEqual({ center: { lat: 1, lng: 2 }, source: "coordinates" });
    await expect(geo.resolve({ location: "Vaduz", lat: 1 }, provider, signal)).rejects.toThrow(/^lng: required/);
    await expect(geo.resolve({ location: "Vaduz", lng: 1 }, provider, signal)).rejects.toThrow(/^lat: required/);
  });

  it("resolves a place ID through the provider; an unknown one and an unknown location are 400s that say so", async () => {
    const { geo, provider } = geocoder();
    const byId = await geo.resolve({ location: "x", locationPlaceId: "osm:node:1" }, provider, signal);
    expect(byId.source).toBe("place-id");
    await expect(geo.resolve({ location: "x", locationPlaceId: "osm:node:999" }, provider, signal)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^locationPlaceId: "osm:node:999" is not a known place ID/),
    });
    await expect(geo.resolve({ location: "Zzyzxville Nowhere" }, provider, signal)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^location: "Zzyzxville Nowhere" is not a place we know/),
    });
  });
});
