import { describe, expect, it } from "vitest";
import { LocalPlaceProvider } from "../../../src/places/search/local.js";
import type { PlaceSearchProvider } from "../../../src/places/search/provider.js";
import { PlaceSources } from "../../../src/places/sources/place-sources.js";
import { createTestInstance } from "../../helpers/instance.js";
import { testVocabulary, VADUZ } from "../../helpers/places.js";

/** A source that answers with nothing (a live source with no match here). */
const silent: PlaceSearchProvider = {
  name: "overpass",
  search: async () => ({ leads: [], nextCursor: null }),
  resolvePlaceId: async () => undefined,
};

const request = { center: VADUZ, radiusKm: 5, keywords: "bakery", cursor: null, signal: new AbortController().signal };

describe("an empty local index says so in a field of the page, not only in its warning's text", () => {
  it("alone, and through a search over several sources", async () => {
    const db = createTestInstance().services.deps.db;
    const local = new LocalPlaceProvider(db, { vocabulary: testVocabulary });
    const own = await local.search(request);
    expect(own).toMatchObject({ leads: [], indexEmpty: true, warnings: [expect.stringMatching(/places index is empty/)] });

    const sources = new PlaceSources(new Map([["local", local], ["overpass", silent]]), ["local", "overpass"]);
    const merged = await sources.search(request);
    expect(merged.indexEmpty).toBe(true);
    expect(merged.warnings).toEqual(own.warnings);
    // Only the live source: nothing is said about the local index.
    const live = await sources.search({ ...request, sources: ["overpass"] });
    expect(live.indexEmpty).toBeUndefined();
  });
});
