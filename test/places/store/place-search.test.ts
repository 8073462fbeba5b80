import { describe, expect, test } from "vitest";
import { placesRepoSetup, placeWrite } from "../../helpers/place-writes.js";
import { PlaceSearchRepo } from "../../../src/places/store/place-search.js";

describe("place search repository (read side)", () => {
  test("rowsByIds gives every column of each asked place under its own name, nothing of others", () => {
    const { db, repo, source } = placesRepoSetup();
    const s = source("a.csv");
    // A distinct value in every column, so a column read into the wrong field shows.
    const full = placeWrite("full:1", {
      name: "Name", address: "Address 1", street: "Street", housenumber: "7a", postcode: "9490", city: "Vaduz", country: "LI",
      lat: 47.141, lng: 9.521, website: "https://example.li/", phone: "+423 000", email: "a@example.li", socials: '["x"]',
      rating: 4.5, categories: '["cafe"]', cuisine: "coffee_shop", brand: "Brand",
    });
    repo.upsertBatch(s.id, [full, placeWrite("other:2"), placeWrite("other:3")], "t");
    const idOf = (placeId: string) => db.prepare("SELECT id FROM places WHERE place_id = ?").pluck().get(placeId) as number;
    const ids = [idOf("full:1"), idOf("other:3")];
    const rows = new PlaceSearchRepo(db).rowsByIds(ids);
    const byPlaceId = new Map(rows.map((r) => [r.place_id, r]));
    expect([...byPlaceId.keys()].sort()).toEqual(["full:1", "other:3"]);
    expect(byPlaceId.get("full:1")).toEqual({
      id: ids[0], place_id: "full:1", name: "Name", address: "Address 1", street: "Street", housenumber: "7a", city: "Vaduz", postcode: "9490",
      country: "LI", lat: 47.141, lng: 9.521, website: "https://example.li/", phone: "+423 000", email: "a@example.li", socials: '["x"]',
      rating: 4.5, categories: '["cafe"]', cuisine: "coffee_shop", brand: "Brand",
    });
    // The same as a row read by place ID (an object built by the driver).
    expect(byPlaceId.get("full:1")).toEqual(new PlaceSearchRepo(db).byPlaceId("full:1"));
    expect(new PlaceSearchRepo(db).rowsByIds([])).toEqual([]);
  });
});
