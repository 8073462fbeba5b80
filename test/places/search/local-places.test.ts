import { describe, expect, it } from "vitest";
import { distanceKm } from "../../../src/core/geo.js";
import { Lead } from "../../../src/core/schemas/lead.js";
import { cellCount, cellsOfCircle, circleCellRanges } from "../../../src/places/store/geo-grid.js";
import { parseKeywords } from "../../../src/places/search/keywords.js";
import { LocalPlaceProvider, termReadOf } from "../../../src/places/search/local.js";
import { textMatcher, type SearchableText } from "../../../src/places/search/slot-match.js";
import { exactRange, PlacePostingsRepo, prefixRange } from "../../../src/places/store/place-postings.js";
import { indexCoordinate } from "../../../src/places/store/postings-codec.js";
import { TAG_TERM_PREFIX } from "../../../src/places/store/place-terms.js";
import { createTestInstance } from "../../helpers/instance.js";
import { insertPlaces, offsetKm, testVocabulary, VADUZ, vaduzPlaces, type TestPlace } from "../../helpers/places.js";
import { PlaceSources } from "../../../src/places/sources/place-sources.js";
import type { PlaceSearchProvider } from "../../../src/places/search/provider.js";

const signal = new AbortController().signal;

function provider(places: TestPlace[] = vaduzPlaces()) {
  const instance = createTestInstance();
  insertPlaces(instance.services.deps.db, places);
  return { instance, local: new LocalPlaceProvider(instance.services.deps.db, { vocabulary: testVocabulary }) };
}

describe("how a prefix's postings are read", () => {
  it("per word and range of cells, unless that takes more seeks than reading cell by cell", () => {
    expect(termReadOf(85, 10, 1)).toBe("ranges");
    expect(termReadOf(26_000, 180, 3)).toBe("ranges");
    expect(termReadOf(1, 1, 1)).toBe("ranges");
    // A short prefix of many words in a small circle.
    expect(termReadOf(85, 10, 40)).toBe("cells");
    expect(termReadOf(26_000, 180, 200)).toBe("cells");
  });
});

describe("keywords", () => {
  it("reads category words in any language and inflection as their tags, other words as plain words", () => {
    const vocabulary = testVocabulary();
    const slot = (keywords: string) => parseKeywords(keywords, vocabulary).map((s) => ({ text: s.text, tags: s.concept?.alternatives ?? null, prefixes: s.prefixes.map((p) => p.prefix) }));
    expect(slot("Dentists")).toEqual([{ text: "dentists", tags: [["amenity=dentist"], ["healthcare=dentist"]], prefixes: ["dentist"] }]);
    expect(slot("Zahnärzte")[0]!.tags).toEqual([["amenity=dentist"], ["healthcare=dentist"]]);
    expect(slot("cafés")[0]!.tags).toEqual([["amenity=cafe"]]);
    expect(slot("Baeckerei")[0]!.tags).toEqual(slot("Bäckerei")[0]!.tags);
    // A phrase is one slot; a cuisine and a kind of place are two (both must hold).
    expect(slot("ice cream").map((s) => s.text)).toEqual(["ice cream"]);
    expect(slot("ice cream")[0]!.tags).toContainEqual(["amenity=ice_cream"]);
    expect(slot("italian restaurant").map((s) => [s.text, s.tags])).toEqual([
      ["italian", [["cuisine=italian"]]],
      ["restaurant", [["amenity=restaurant"]]],
    ]);
    expect(slot("Meiers müller")).toEqual([
      { text: "meiers", tags: null, prefixes: ["meier"] },
      { text: "muller", tags: null, prefixes: ["muller"] },
    ]);
  });

  it("reads user text as plain words (no query syntax exists to inject)", () => {
    expect(parseKeywords('pizza" OR x* NEAR(a', testVocabulary()).map((t) => t.text)).toEqual(["pizza", "or", "near"]);
  });
});

describe("local place provider", () => {
  it("finds 'Dentists Vaduz' for 'dentist' and the category 'dentist' for 'dentists', inside the circle only", async () => {
    const { local } = provider();
    for (const keywords of ["dentist", "dentists", "DENTISTS"]) {
      const page = await local.search({ center: VADUZ, radiusKm: 5, keywords, cursor: null, signal });
      expect(page.leads.map((l) => l.placeId).sort()).toEqual(["osm:node:1", "osm:node:2", "osm:node:3"]);
      expect(page.nextCursor).toBeNull();
    }
    const wide = await local.search({ center: VADUZ, radiusKm: 10, keywords: "dentist", cursor: null, signal });
    expect(wide.leads.map((l) => l.placeId)).toContain("osm:node:4");
  });

  it("ranks category matches by distance alone, a name in the name adding nothing", async () => {
    const { local } = provider();
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "dentist", cursor: null, signal });
    // Dentists Vaduz (0.3 km), Dr. Meier (1.1 km), Zahnarztpraxis Schaan (4.1 km): all dentists, nearest first.
    expect(page.leads.map((l) => l.placeId)).toEqual(["osm:node:1", "osm:node:2", "osm:node:3"]);
  });

  it("matches 'cafés' to the category cafe and 'restaurants' to restaurant, not to a hotel's description", async () => {
    const { local } = provider();
    const cafes = await local.search({ center: VADUZ, radiusKm: 5, keywords: "cafés", cursor: null, signal });
    expect(cafes.leads.map((l) => l.name)).toEqual(["Café Wolf"]);
    const restaurants = await local.search({ center: VADUZ, radiusKm: 5, keywords: "restaurants", cursor: null, signal });
    expect(restaurants.leads.map((l) => l.placeId)).toEqual(["osm:way:5"]);
    const italian = await local.search({ center: VADUZ, radiusKm: 5, keywords: "italian restaurant", cursor: null, signal });
    expect(italian.leads.map((l) => l.placeId)).toEqual(["osm:way:5"]);
  });

  it("emits leads by the lead-value rules: domain without www, https for a bare website, bad social dropped", async () => {
    const { local } = provider();
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "restaurant", cursor: null, signal });
    for (const lead of page.leads) expect(Lead.safeParse(lead).success).toBe(true);
    const italia = page.leads.find((l) => l.placeId === "osm:way:5")!;
    expect(italia).toMatchObject({ website: "https://ristorante-italia.li/", domain: "ristorante-italia.li", rating: 4.5, socials: { facebook: "https://facebook.com/italia" } });
    expect(italia.socials).not.toHaveProperty("twitter");
    const dentists = await local.search({ center: VADUZ, radiusKm: 5, keywords: "dentist", cursor: null, signal });
    expect(dentists.leads[0]).toMatchObject({ domain: "dentists-vaduz.li", rating: null, email: null });
    expect(dentists.leads[1]).toMatchObject({ email: "praxis@meier.li", website: null, domain: null });
  });

  it("pages by 20 with a stable order and no lead twice across pages", async () => {
    const many: TestPlace[] = Array.from({ length: 45 }, (_, i) => ({
      placeId: `osm:node:${100 + i}`,
      name: `Pizzeria ${i}`,
      ...offsetKm(VADUZ.lat, VADUZ.lng, (i % 7) * 0.3, Math.floor(i / 7) * 0.3),
      categories: ["restaurant"],
    }));
    const { local } = provider(many);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "pizzeria", cursor, signal });
      sizes.push(page.leads.length);
      seen.push(...page.leads.map((l) => l.placeId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([20, 20, 5]);
    expect(new Set(seen).size).toBe(45);
    const again = await local.search({ center: VADUZ, radiusKm: 5, keywords: "pizzeria", cursor: null, signal });
    expect(again.leads.map((l) => l.placeId)).toEqual(seen.slice(0, 20));
    // Distances never decrease among equally relevant places.
    const d = seen.map((id) => distanceKm(VADUZ, many.find((p) => p.placeId === id)!));
    for (let i = 1; i < d.length; i++) expect(d[i]!).toBeGreaterThanOrEqual(d[i - 1]! - 1e-9);
  });

  it("keeps one record of a business that two sources both have", async () => {
    const { instance, local } = provider([{ placeId: "osm:node:1", name: "Dentists Vaduz", ...VADUZ, categories: ["dentist"] }]);
    insertPlaces(instance.services.deps.db, [{ placeId: "overture:abc", name: "Dentists  VADUZ", lat: VADUZ.lat + 0.0002, lng: VADUZ.lng, categories: ["dentist"] }], "overture.parquet");
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "dentist", cursor: null, signal });
    expect(page.leads).toHaveLength(1);
  });

  it("answers from the term index exactly what scoring every place's text answers, cold and warm alike", async () => {
    const names = ["Pizzeria Roma", "Ristorante Italia", "Restaurant Restaurant Zum Löwen", "Café Wolf", "Restaurants & Bar", "Bistro", "Wolf Restauration"];
    const places: TestPlace[] = Array.from({ length: 300 }, (_, i) => ({
      placeId: `n:${i}`,
      name: `${names[i % names.length]} ${i % 5 === 0 ? "Restaurant" : ""}`.trim(),
      ...offsetKm(VADUZ.lat, VADUZ.lng, ((i * 37) % 23) - 11, ((i * 53) % 19) - 9),
      categories: i % 3 === 0 ? ["restaurant", "italian restaurant"] : i % 3 === 1 ? ["cafe"] : ["bar"],
      description: i % 4 === 0 ? "Italian restaurant with a garden" : undefined,
    }));
    const { instance, local } = provider(places);
    const db = instance.services.deps.db;
    const everyPlace = db.prepare("SELECT id, lat, lng, name, category_text, category_tags, cuisine, brand, description FROM places").all() as Array<
      SearchableText & { id: number; lat: number; lng: number }
    >;
    const reads = new Set<string>();
    // Words are read by (word, cell range); a prefix of many words in a small circle cell by cell.
    for (const [keywords, radiusKm] of [["restaurant", 5], ["restaurants", 10], ["italian restaurant", 8], ["wolf", 15], ["cafés", 3], ["r", 6], ["r", 1.5], ["restaurant", 40], ["italian restaurant", 100], ["r", 100], ["bar wolf", 20], ["with", 12]] as const) {
      const score = textMatcher(local.slotsOf(keywords));
      const reference = everyPlace
        // Distances from the positions as the index stores them (to 1e-7 degrees, ~1 cm).
        .map((p) => ({ id: p.id, score: score(p), distanceKm: distanceKm(VADUZ, { lat: indexCoordinate(p.lat), lng: indexCoordinate(p.lng) }) }))
        .filter((r): r is { id: number; score: number; distanceKm: number } => r.score !== undefined && r.distanceKm <= radiusKm)
        .sort((a, b) => b.score - a.score || a.distanceKm - b.distanceKm || a.id - b.id);
      const cold = new LocalPlaceProvider(db).rankedMatches(VADUZ, radiusKm, keywords);
      expect(reference.length).toBeGreaterThan(0);
      expect(cold).toEqual(reference);
      expect(local.rankedMatches(VADUZ, radiusKm, keywords)).toEqual(reference);
      expect(local.rankedMatches(VADUZ, radiusKm, keywords)).toEqual(cold);
      // Which read these searches took, so that both are known to be compared above.
      const cells = circleCellRanges(VADUZ, radiusKm, 1e6)!;
      const postings = new PlacePostingsRepo(db);
      for (const slot of local.slotsOf(keywords)) {
        const ranges = [...slot.prefixes.map((p) => prefixRange(p.prefix)), ...slot.tagTerms.map((t) => exactRange(TAG_TERM_PREFIX + t))];
        for (const range of ranges) reads.add(termReadOf(cellCount(cells), cells.length, postings.termsIn(range).length));
      }
    }
    expect([...reads].sort()).toEqual(["cells", "ranges"]);
  });

  it("pages through many matches and many duplicates exactly as the full ranking says", async () => {
    const places: TestPlace[] = [];
    // 60 records of one business (same name, within metres) at the centre: they rank first.
    for (let i = 0; i < 60; i++) places.push({ placeId: `dup:${i}`, name: "Pizzeria Pizzeria", lat: VADUZ.lat + i * 1e-6, lng: VADUZ.lng, categories: ["pizzeria"] });
    for (let i = 0; i < 300; i++) places.push({ placeId: `p:${i}`, name: `Pizzeria ${i}`, ...offsetKm(VADUZ.lat, VADUZ.lng, ((i * 37) % 17) * 0.25, ((i * 53) % 13) * 0.25), categories: ["restaurant"] });
    const { local } = provider(places);
    const full = local.rankedMatches(VADUZ, 5, "pizzeria");
    expect(full.length).toBe(360);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "pizzeria", cursor, signal });
      seen.push(...page.leads.map((l) => l.placeId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 30);
    // One record of the duplicated business, then every other place in ranking order.
    expect(seen.filter((id) => id.startsWith("dup:"))).toEqual(["dup:0"]);
    expect(seen.length).toBe(301);
    const placeIdOf = new Map(places.map((p, i) => [i + 1, p.placeId]));
    expect(seen.filter((id) => !id.startsWith("dup:"))).toEqual(full.map((r) => placeIdOf.get(r.id)!).filter((id) => !id.startsWith("dup:")));
  });

  it("sees places added, renamed and removed on the next search (no state to invalidate)", async () => {
    const places: TestPlace[] = Array.from({ length: 30 }, (_, i) => ({ placeId: `r:${i}`, name: `Bistro ${i}`, ...offsetKm(VADUZ.lat, VADUZ.lng, 40 + i, 0), categories: ["restaurant"] }));
    const { instance, local } = provider(places);
    const db = instance.services.deps.db;
    expect(local.rankedMatches(VADUZ, 100, "bistro")).toHaveLength(30);
    const elsewhere = offsetKm(VADUZ.lat, VADUZ.lng, 55, 0);
    expect(local.rankedMatches(elsewhere, 2, "bistro")).toHaveLength(3);
    insertPlaces(db, [{ placeId: "r:new", name: "Bistro Neu", ...elsewhere, categories: ["restaurant"] }]);
    expect(local.rankedMatches(elsewhere, 2, "bistro")).toHaveLength(4);
    db.prepare("UPDATE places SET name = 'Alpenblick Neu' WHERE place_id = 'r:new'").run();
    expect(local.rankedMatches(elsewhere, 2, "bistro")).toHaveLength(3);
    expect(local.rankedMatches(elsewhere, 2, "alpenblick")).toHaveLength(1);
    db.prepare("DELETE FROM places WHERE place_id = 'r:new'").run();
    expect(local.rankedMatches(elsewhere, 2, "alpenblick")).toEqual([]);
  });

  it("keeps places just inside the circle's edge in every direction and drops those just outside", async () => {
    for (const [center, radiusKm] of [[{ lat: 60.2, lng: 24.9 }, 100], [{ lat: -45.9, lng: 170.5 }, 25], [{ lat: 0.1, lng: -78.5 }, 1]] as const) {
      const places: TestPlace[] = [];
      for (let i = 0; i < 72; i++) {
        const bearing = (i * 5 * Math.PI) / 180;
        for (const [tag, factor] of [["in", 0.99999], ["out", 1.0001]] as const) {
          // Destination point on the sphere (the inverse of the haversine).
          const d = (radiusKm * factor) / 6371.0088;
          const phi1 = (center.lat * Math.PI) / 180;
          const phi2 = Math.asin(Math.sin(phi1) * Math.cos(d) + Math.cos(phi1) * Math.sin(d) * Math.cos(bearing));
          const lambda = (center.lng * Math.PI) / 180 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(phi1), Math.cos(d) - Math.sin(phi1) * Math.sin(phi2));
          places.push({ placeId: `${tag}:${i}`, name: `Edge Shop ${i}`, lat: (phi2 * 180) / Math.PI, lng: (lambda * 180) / Math.PI, categories: ["shop"] });
        }
      }
      const { local } = provider(places);
      const inside = places.filter((p) => distanceKm(center, p) <= radiusKm).length;
      expect(inside).toBe(72);
      expect(local.rankedMatches(center, radiusKm, "edge shop")).toHaveLength(72);
    }
  });

  it("finds places on both sides of the antimeridian", async () => {
    const { local } = provider([
      { placeId: "east", name: "Fiji Dive Shop", lat: -17.0, lng: 179.99, categories: ["dive centre"] },
      { placeId: "west", name: "Taveuni Dive", lat: -17.0, lng: -179.99, categories: ["dive centre"] },
    ]);
    const page = await local.search({ center: { lat: -17.0, lng: 180 }, radiusKm: 5, keywords: "dive centre", cursor: null, signal });
    expect(page.leads.map((l) => l.placeId).sort()).toEqual(["east", "west"]);
  });

  it("near a pole, where a circle spans every longitude, scans the box with the same ranking", async () => {
    const { local } = provider([
      { placeId: "far", name: "Polar Station Cafe", lat: 89.6, lng: 10, categories: ["cafe"] },
      { placeId: "near", name: "North Cafe", lat: 89.9, lng: -120, categories: ["cafe"] },
      { placeId: "out", name: "South Cafe", lat: 88.0, lng: 0, categories: ["cafe"] },
    ]);
    // Too many cells to list: the search falls back to the box.
    expect(cellsOfCircle({ lat: 90, lng: 0 }, 50, 60_000)).toBeUndefined();
    const ranked = local.rankedMatches({ lat: 90, lng: 0 }, 50, "cafe");
    expect(ranked.map((r) => r.distanceKm < 50)).toEqual([true, true]);
    const page = await local.search({ center: { lat: 90, lng: 0 }, radiusKm: 50, keywords: "cafe", cursor: null, signal });
    expect(page.leads.map((l) => l.placeId)).toEqual(["near", "far"]);
  });

  it("indexes every word of a long description: a plain word finds it there, after a name match", async () => {
    const long = Array.from({ length: 1100 }, (_, i) => (i % 100 === 0 ? "sourdough" : `word${i}`)).join(" ");
    const { local } = provider([
      { placeId: "long", name: "Brot", ...VADUZ, categories: ["bakery"], description: long },
      { placeId: "named", name: "Sourdough Beck", ...offsetKm(VADUZ.lat, VADUZ.lng, 1, 0), categories: ["bakery"] },
    ]);
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "sourdough", cursor: null, signal });
    expect(page.leads.map((l) => l.placeId)).toEqual(["named", "long"]);
    // A category word never matches a description.
    const bakeries = await local.search({ center: VADUZ, radiusKm: 5, keywords: "bakery", cursor: null, signal });
    expect(bakeries.leads.map((l) => l.placeId)).toEqual(["long", "named"]);
  });

  it("loads its vocabulary when prepared (a server does so before listening, not in its first request)", async () => {
    const instance = createTestInstance();
    insertPlaces(instance.services.deps.db, vaduzPlaces());
    let loads = 0;
    const local = new LocalPlaceProvider(instance.services.deps.db, {
      vocabulary: () => {
        loads++;
        return testVocabulary();
      },
    });
    local.prepare();
    expect(loads).toBe(1);
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "Zahnarzt", cursor: null, signal });
    expect(page.leads.map((l) => l.placeId)).toEqual(["osm:node:1", "osm:node:2", "osm:node:3"]);
  });

  it("resolves its own place IDs and knows no others", async () => {
    const { local } = provider();
    expect(await local.resolvePlaceId("osm:node:1", signal)).toMatchObject({ name: "Dentists Vaduz" });
    expect(await local.resolvePlaceId("osm:node:999", signal)).toBeUndefined();
  });

  it("an aborted resolve of a place ID rejects with the abort, also across sources (the next source is not asked)", async () => {
    const { local } = provider();
    const reason = new Error("the client went away");
    const aborted = new AbortController();
    aborted.abort(reason);
    await expect(local.resolvePlaceId("osm:node:1", aborted.signal)).rejects.toBe(reason);
    // Aborted while the first source looks (one that does not listen), before the second is asked.
    const live = new AbortController();
    let laterAsked = 0;
    const source = (resolvePlaceId: PlaceSearchProvider["resolvePlaceId"]) => ({ ...local, name: "fake", search: local.search, resolvePlaceId }) as PlaceSearchProvider;
    const sources = new PlaceSources(
      new Map([
        ["first", source(async () => (live.abort(reason), undefined))],
        ["later", source(async () => (laterAsked++, { center: VADUZ, name: "Vaduz" }))],
      ]),
      ["first"],
    );
    await expect(sources.resolvePlaceId("osm:node:1", live.signal)).rejects.toBe(reason);
    expect(laterAsked).toBe(0);
    // Not aborted: the same sources answer.
    expect(await new PlaceSources(new Map([["local", local]]), ["local"]).resolvePlaceId("osm:node:1", signal)).toMatchObject({ name: "Dentists Vaduz" });
  });

  it("stops when the signal is already aborted", async () => {
    const { local } = provider();
    const controller = new AbortController();
    controller.abort();
    await expect(local.search({ center: VADUZ, radiusKm: 5, keywords: "dentist", cursor: null, signal: controller.signal })).rejects.toThrow();
  });
});
