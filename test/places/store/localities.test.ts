import { describe, expect, test } from "vitest";
import { LocalitiesRepo } from "../../../src/places/store/localities.js";
import { placesRepoSetup, placeWrite } from "../../helpers/place-writes.js";

const place = placeWrite;

function setup() {
  const { db, repo, source } = placesRepoSetup();
  const localities = new LocalitiesRepo(db);
  const rows = () => db.prepare("SELECT kind, key, name, city, country, lat, lng, place_count FROM localities ORDER BY kind, key, lat").all();
  return { db, repo, source, localities, rows };
}

describe("localities (the geocoder's index of the imported data)", () => {
  test("cities and postcodes: most common spelling, centroid, and places without a country join by position", () => {
    const { repo, source, localities, rows } = setup();
    const s = source("a.csv");
    repo.upsertBatch(s.id, [
      place("1", { city: "München", country: "DE", postcode: "80331", lat: 48.0, lng: 11.0 }),
      place("2", { city: "München", country: null, postcode: "80331", lat: 48.2, lng: 11.2 }),
      place("3", { city: "Muenchen", country: "DE", lat: 48.1, lng: 11.1 }),
      place("4", { city: "Nowhere", country: null, lat: 1, lng: 1 }),
    ], "t");
    localities.rebuild();
    expect(rows()).toEqual([
      { kind: "city", key: "munchen", name: "München", city: null, country: "DE", lat: expect.closeTo(48.1, 9), lng: expect.closeTo(11.1, 9), place_count: 3 },
      { kind: "city", key: "nowhere", name: "Nowhere", city: null, country: "", lat: 1, lng: 1, place_count: 1 },
      { kind: "postcode", key: "80331", name: "80331", city: "München", country: "DE", lat: expect.closeTo(48.1, 9), lng: expect.closeTo(11.1, 9), place_count: 2 },
    ]);
  });

  test("one name far apart is several localities (two Portlands are not averaged into Idaho); streets per city", () => {
    const { repo, source, localities } = setup();
    const s = source("us.csv");
    repo.upsertBatch(s.id, [
      place("or1", { city: "Portland", country: "US", street: "Main Street", lat: 45.52, lng: -122.68 }),
      place("or2", { city: "Portland", country: "US", street: "Main Street", lat: 45.53, lng: -122.66 }),
      place("me1", { city: "Portland", country: "US", street: "Main Street", lat: 43.66, lng: -70.26 }),
    ], "t");
    localities.rebuild();
    const cities = localities.find("portland");
    expect(cities.map((r) => [r.kind, r.place_count, Math.round(r.lng)])).toEqual([["city", 2, -123], ["city", 1, -70]]);
    expect(localities.find("main street").map((r) => [r.kind, r.city, r.place_count])).toEqual([["street", "Portland", 2], ["street", "Portland", 1]]);
  });

  test("named places: a city OSM names moves its locality to OSM's point; districts say their city; 'City of X' is also 'X'", () => {
    const { repo, source, localities } = setup();
    const s = source("a.osm.pbf");
    repo.upsertBatch(s.id, [place("1", { city: "Helsinki", country: "FI", lat: 60.17, lng: 24.94 }), place("2", { city: "Helsinki", country: "FI", lat: 60.19, lng: 24.96 })], "t");
    localities.replaceNamedPlaces(s.id, [
      { osmId: "osm:node:1", name: "Helsinki", kind: "city", country: "FI", lat: 60.1699, lng: 24.9384 },
      { osmId: "osm:relation:2", name: "Kamppi", kind: "district", country: "FI", lat: 60.1685, lng: 24.9316 },
      { osmId: "osm:node:3", name: "Kamppi", kind: "district", country: "FI", lat: 60.1680, lng: 24.9320 },
      { osmId: "osm:relation:4", name: "City of Westminster", kind: "city", country: "GB", lat: 51.4975, lng: -0.1357 },
    ]);
    localities.rebuild();
    expect(localities.find("helsinki")).toEqual([expect.objectContaining({ kind: "city", lat: 60.1699, lng: 24.9384, place_count: 2 })]);
    expect(localities.find("kamppi")).toEqual([expect.objectContaining({ kind: "district", city: "Helsinki", lat: 60.168 })]);
    expect(localities.find("westminster")).toEqual([expect.objectContaining({ kind: "city", name: "City of Westminster" })]);
    // A new import of the source replaces its named places.
    localities.replaceNamedPlaces(s.id, []);
    localities.rebuild();
    expect(localities.find("kamppi")).toEqual([]);
  });

  test("whether any place lies near a point reads the circle's own cover: across the antimeridian and near a pole too", () => {
    const { repo, source, localities } = setup();
    repo.upsertBatch(source("edges.csv").id, [
      place("fiji", { lat: -16.5, lng: 179.99 }),
      place("north", { lat: 89.95, lng: -100 }),
    ], "t");
    // 2.1 km west across the antimeridian, and 5.6 km across the pole (the other side's longitude).
    expect(localities.anyPlaceWithin({ lat: -16.5, lng: -179.99 }, 3)).toBe(true);
    expect(localities.anyPlaceWithin({ lat: 89.95, lng: 80 }, 12)).toBe(true);
    expect(localities.anyPlaceWithin({ lat: -16.5, lng: -179.9 }, 3)).toBe(false);
    expect(localities.anyPlaceWithin({ lat: 47.14, lng: 9.52 }, 50)).toBe(false);
  });
});
