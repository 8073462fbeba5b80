import { describe, expect, it } from "vitest";
import { distanceKm } from "../../src/core/geo.js";
import { Lead } from "../../src/core/schemas/lead.js";
import { ftsQuery, keywordTerms } from "../../src/providers/places/keywords.js";
import { LocalPlaceProvider } from "../../src/providers/places/local.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertPlaces, offsetKm, VADUZ, vaduzPlaces, type TestPlace } from "../helpers/places.js";

const signal = new AbortController().signal;

function provider(places: TestPlace[] = vaduzPlaces()) {
  const instance = createTestInstance();
  insertPlaces(instance.services.deps.db, places);
  return { instance, local: new LocalPlaceProvider(instance.services.deps.db) };
}

describe("keyword terms", () => {
  it("folds diacritics and turns plurals into prefixes that find both forms", () => {
    expect(keywordTerms("Dentists").map((t) => t.prefixes)).toEqual([["dentist"]]);
    expect(keywordTerms("cafés").map((t) => t.prefixes)).toEqual([["cafe"]]);
    expect(keywordTerms("bakeries").map((t) => t.prefixes)).toEqual([["baker"]]);
    expect(keywordTerms("glass").map((t) => t.prefixes)).toEqual([["glass"]]);
  });

  it("quotes every term so user text is never FTS syntax", () => {
    expect(ftsQuery(keywordTerms('pizza" OR x* NEAR(a'))).toBe('"pizza"* AND "or"* AND "near"*');
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

  it("ranks a name match above a category-only match, then by distance", async () => {
    const { local } = provider();
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "dentist", cursor: null, signal });
    expect(page.leads[0]!.placeId).toBe("osm:node:1");
    // Dr. Meier (1.1 km) and Zahnarztpraxis Schaan (4.1 km) match the category alone: nearer first.
    expect(page.leads.slice(1).map((l) => l.placeId)).toEqual(["osm:node:2", "osm:node:3"]);
  });

  it("matches 'cafés' to the category cafe and 'restaurants' to restaurant and description", async () => {
    const { local } = provider();
    const cafes = await local.search({ center: VADUZ, radiusKm: 5, keywords: "cafés", cursor: null, signal });
    expect(cafes.leads.map((l) => l.name)).toEqual(["Café Wolf"]);
    const restaurants = await local.search({ center: VADUZ, radiusKm: 5, keywords: "restaurants", cursor: null, signal });
    expect(restaurants.leads.map((l) => l.placeId)).toEqual(["osm:way:5", "osm:node:7"]);
    const italian = await local.search({ center: VADUZ, radiusKm: 5, keywords: "italian restaurant", cursor: null, signal });
    expect(italian.leads.map((l) => l.placeId)).toEqual(["osm:way:5"]);
  });

  it("emits leads within every 2.3 bound: domain without www, scheme added, bad social dropped", async () => {
    const { local } = provider();
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "restaurant", cursor: null, signal });
    for (const lead of page.leads) expect(Lead.safeParse(lead).success).toBe(true);
    const italia = page.leads.find((l) => l.placeId === "osm:way:5")!;
    expect(italia).toMatchObject({ website: "http://ristorante-italia.li", domain: "ristorante-italia.li", rating: 4.5, socials: { facebook: "https://facebook.com/italia" } });
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

  it("chooses box-first for a common keyword in a small circle and FTS-first for a rare one", async () => {
    const places: TestPlace[] = [];
    for (let i = 0; i < 400; i++) {
      places.push({ placeId: `n:${i}`, name: `Shop ${i}`, ...offsetKm(VADUZ.lat, VADUZ.lng, 20 + (i % 20), Math.floor(i / 20)), categories: ["restaurant"] });
    }
    places.push({ placeId: "n:near", name: "Near Restaurant", ...VADUZ, categories: ["restaurant"] });
    places.push({ placeId: "n:rare", name: "Glassblower", ...VADUZ, categories: ["craft"] });
    const { local } = provider(places);
    const common = local.rankedMatches(VADUZ, 5, "restaurant");
    expect(local.lastPlan).toBe("box-first");
    expect(common).toHaveLength(1);
    // Searched again: the keyword's match list is built once, then reused; same answer.
    expect(local.rankedMatches(VADUZ, 5, "restaurant")).toEqual(common);
    expect(local.lastPlan).toBe("fts-first");
    expect(local.rankedMatches(VADUZ, 5, "restaurant")).toEqual(common);
    expect(local.lastPlan).toBe("cached");
    const rare = local.rankedMatches(VADUZ, 100, "glassblower");
    expect(local.lastPlan).toBe("fts-first");
    expect(rare).toHaveLength(1);
  });

  it("reuses a keyword's match list for later searches and drops it when the index changes", async () => {
    const places: TestPlace[] = Array.from({ length: 30 }, (_, i) => ({ placeId: `r:${i}`, name: `Bistro ${i}`, ...offsetKm(VADUZ.lat, VADUZ.lng, 40 + i, 0), categories: ["restaurant"] }));
    const { instance, local } = provider(places);
    expect(local.rankedMatches(VADUZ, 100, "bistro")).toHaveLength(30);
    expect(local.lastPlan).toBe("fts-first");
    const elsewhere = offsetKm(VADUZ.lat, VADUZ.lng, 55, 0);
    expect(local.rankedMatches(elsewhere, 2, "bistro")).toHaveLength(3);
    expect(local.lastPlan).toBe("cached");
    insertPlaces(instance.services.deps.db, [{ placeId: "r:new", name: "Bistro Neu", ...elsewhere, categories: ["restaurant"] }]);
    const after = local.rankedMatches(elsewhere, 2, "bistro");
    expect(local.lastPlan).not.toBe("cached");
    expect(after).toHaveLength(4);
  });

  it("resolves its own place IDs and knows no others", async () => {
    const { local } = provider();
    expect(await local.resolvePlaceId("osm:node:1", signal)).toMatchObject({ name: "Dentists Vaduz" });
    expect(await local.resolvePlaceId("osm:node:999", signal)).toBeUndefined();
  });

  it("stops when the signal is already aborted", async () => {
    const { local } = provider();
    const controller = new AbortController();
    controller.abort();
    await expect(local.search({ center: VADUZ, radiusKm: 5, keywords: "dentist", cursor: null, signal: controller.signal })).rejects.toThrow();
  });
});
