import { describe, expect, it } from "vitest";
import { normaliseKey } from "../../../src/core/text.js";
import { Geocoder } from "../../../src/places/geocode/geocoder.js";
import { parseQualifier, parseQualifiers } from "../../../src/places/geocode/regions.js";
import { LocalPlaceProvider } from "../../../src/places/search/local.js";
import { createTestInstance } from "../../helpers/instance.js";
import { insertLocality, insertPlaces, testVocabulary, VADUZ, vaduzPlaces } from "../../helpers/places.js";

const signal = new AbortController().signal;

function geocoder() {
  const instance = createTestInstance();
  const db = instance.services.deps.db;
  insertPlaces(db, vaduzPlaces());
  insertLocality(db, { kind: "city", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 300 });
  insertLocality(db, { kind: "city", name: "Schaan", country: "LI", lat: 47.165, lng: 9.51, placeCount: 200 });
  insertLocality(db, { kind: "city", name: "München", country: "DE", lat: 48.137, lng: 11.575, placeCount: 9000 });
  insertLocality(db, { kind: "postcode", name: "9490", city: "Vaduz", country: "LI", lat: 47.139, lng: 9.522, placeCount: 280 });
  insertLocality(db, { kind: "postcode", name: "9494", city: "Schaan", country: "LI", lat: 47.166, lng: 9.509, placeCount: 190 });
  insertLocality(db, { kind: "postcode", name: "EC4M 9BR", city: "London", country: "GB", lat: 51.5138, lng: -0.0984, placeCount: 12 });
  insertLocality(db, { kind: "square", name: "Marienplatz", city: "München", country: "DE", lat: 48.1374, lng: 11.5755, placeCount: 0 });
  insertLocality(db, { kind: "street", name: "Marienplatz", city: "München", country: "DE", lat: 48.1372, lng: 11.5760, placeCount: 40 });
  insertLocality(db, { kind: "district", name: "Kamppi", city: "Helsinki", country: "FI", lat: 60.1681, lng: 24.9319, placeCount: 0 });
  // Two Portlands of the data, and a Westminster far from London.
  insertLocality(db, { kind: "city", name: "Portland", country: "US", lat: 45.54, lng: -122.65, placeCount: 4 });
  insertLocality(db, { kind: "city", name: "Portland", country: "US", lat: 43.66, lng: -70.26, placeCount: 5 });
  insertLocality(db, { kind: "city", name: "Westminster", country: "US", lat: 39.84, lng: -105.04, placeCount: 3 });
  insertLocality(db, { kind: "city", name: "City of Westminster", key: "westminster", country: "GB", lat: 51.50, lng: -0.13, placeCount: 0 });
  return { geo: new Geocoder(db), provider: new LocalPlaceProvider(db, { vocabulary: testVocabulary }) };
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
    expect(parseQualifier("Oesterreich")).toEqual({ country: "AT" });
    expect(parseQualifier("Texas")).toEqual({ country: "US", admin: "TX" });
    expect(parseQualifier("usa")).toEqual({ country: "US" });
    expect(parseQualifier("Atlantis")).toBeUndefined();
  });

  it("reads a two-letter code both ways when it is a country and a state", () => {
    expect(parseQualifiers("ME")).toEqual([{ country: "ME" }, { country: "US", admin: "ME" }]);
    expect(parseQualifiers("OR")).toEqual([{ country: "US", admin: "OR" }]);
  });
});

describe("geocoder", () => {
  it("resolves city names of the locality index, accents and transliterations folded, and says what it found", async () => {
    const { geo } = geocoder();
    expect(geo.resolveText("Schaan")).toEqual({ center: { lat: 47.165, lng: 9.51 }, name: "Schaan", kind: "city", source: "locality" });
    for (const text of ["München", "munchen", "Muenchen", "MÜNCHEN"]) expect(geo.resolveText(text)).toMatchObject({ center: { lat: 48.137, lng: 11.575 }, name: "München" });
  });

  it("prefers the postcode, as written with its space, with or without the city", async () => {
    const { geo } = geocoder();
    expect(geo.resolveText("9490 Vaduz")).toEqual({ center: { lat: 47.139, lng: 9.522 }, name: "9490 Vaduz", kind: "postcode", source: "postcode" });
    expect(geo.resolveText("9494")).toMatchObject({ center: { lat: 47.166, lng: 9.509 }, kind: "postcode" });
    for (const text of ["EC4M 9BR", "ec4m 9br", "EC4M 9BR London", "EC4M 9BR, London"]) {
      expect(geo.resolveText(text), text).toMatchObject({ center: { lat: 51.5138, lng: -0.0984 }, name: "EC4M 9BR London" });
    }
  });

  it("resolves squares, districts and streets of the data, alone or with their city", async () => {
    const { geo } = geocoder();
    expect(geo.resolveText("Marienplatz")).toMatchObject({ kind: "square", name: "Marienplatz, München", center: { lat: 48.1374, lng: 11.5755 } });
    expect(geo.resolveText("Marienplatz, München")).toMatchObject({ kind: "square" });
    expect(geo.resolveText("Marienplatz, Vaduz")).toBeUndefined();
    expect(geo.resolveText("Kamppi")).toMatchObject({ kind: "district", name: "Kamppi, Helsinki" });
    // Helsinki is not in the data: the gazetteer places it, and Kamppi lies by it.
    expect(geo.resolveText("Kamppi, Helsinki")).toMatchObject({ kind: "district" });
  });

  it("keeps apart places of one name: a US state picks its Portland; a bare ambiguous name takes the most populous", async () => {
    const { geo } = geocoder();
    const oregon = geo.resolveText("Portland, OR")!;
    expect(oregon).toMatchObject({ name: "Portland, OR, US", kind: "city" });
    expect(oregon.center.lng).toBeCloseTo(-122.68, 1);
    expect(geo.resolveText("Portland, ME")!.center.lng).toBeCloseTo(-70.26, 1);
    expect(geo.resolveText("Portland, Oregon")!.center.lng).toBeCloseTo(-122.68, 1);
    // City of Westminster (247,614) over Westminster, Colorado (113,130), both in the data.
    expect(geo.resolveText("Westminster")).toMatchObject({ name: "City of Westminster, GB" });
  });

  it("falls back to the gazetteer with country names and codes, preferring a city near the imported data", async () => {
    const { geo } = geocoder();
    const vaduz = geo.resolveText("Vaduz, Liechtenstein");
    // The locality index wins for Vaduz (it is imported); a city it lacks comes from GeoNames.
    expect(vaduz?.source).toBe("locality");
    const paris = geo.resolveText("Paris, FR")!;
    expect(paris).toMatchObject({ source: "gazetteer", name: "Paris, FR" });
    expect(paris.center.lat).toBeCloseTo(48.85, 1);
    expect(paris.center.lng).toBeCloseTo(2.35, 1);
    for (const text of ["Paris, Texas", "Paris, US", "paris, tx"]) {
      const tx = geo.resolveText(text)!;
      expect(tx.center.lat).toBeCloseTo(33.66, 1);
      expect(tx.center.lng).toBeCloseTo(-95.55, 1);
    }
    // Without a country, the most populous Paris (no Paris is near the imported data).
    expect(geo.resolveText("Paris")!.center.lng).toBeCloseTo(2.35, 1);
    expect(geo.resolveText("Triesenberg, LI")!.center.lat).toBeCloseTo(47.118, 1);
    // Vaduz's data is near Buchs SG (Switzerland), not near Buchs in Aargau or Zürich.
    expect(geo.resolveText("Buchs")!.center.lat).toBeCloseTo(47.17, 1);
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
    expect(await geo.resolve({ location: "Paris, FR", lat: 1, lng: 2 }, provider, signal)).toEqual({ center: { lat: 1, lng: 2 }, name: "1, 2", kind: "coordinates", source: "coordinates" });
    await expect(geo.resolve({ location: "Vaduz", lat: 1 }, provider, signal)).rejects.toThrow(/^lng: required/);
    await expect(geo.resolve({ location: "Vaduz", lng: 1 }, provider, signal)).rejects.toThrow(/^lat: required/);
  });

  it("resolves a place ID through the provider; an unknown one and an unknown location are 400s that say so", async () => {
    const { geo, provider } = geocoder();
    const byId = await geo.resolve({ location: "x", locationPlaceId: "osm:node:1" }, provider, signal);
    expect(byId).toMatchObject({ source: "place-id", kind: "place-id", name: "Dentists Vaduz" });
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
