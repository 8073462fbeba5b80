import { describe, expect, it } from "vitest";
import type { LeadSort } from "../../../src/places/search/provider.js";
import { LocalPlaceProvider } from "../../../src/places/search/local.js";
import { createTestInstance } from "../../helpers/instance.js";
import { insertPlaces, offsetKm, testVocabulary, VADUZ, type TestPlace } from "../../helpers/places.js";

const signal = new AbortController().signal;
const at = (northKm: number, eastKm = 0) => offsetKm(VADUZ.lat, VADUZ.lng, northKm, eastKm);

function provider(places: TestPlace[]) {
  const instance = createTestInstance();
  insertPlaces(instance.services.deps.db, places);
  return new LocalPlaceProvider(instance.services.deps.db, { vocabulary: testVocabulary });
}

async function names(local: LocalPlaceProvider, keywords: string, sort?: LeadSort, radiusKm = 5): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await local.search({ center: VADUZ, radiusKm, keywords, cursor, sort, signal });
    out.push(...page.leads.map((l) => l.name));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

describe("category words in any language", () => {
  const places: TestPlace[] = [
    { placeId: "d1", name: "Dr. Frick", ...at(0.2), tags: ["amenity=dentist", "healthcare=dentist"] },
    { placeId: "d2", name: "Praxis am Rhein", ...at(0.5), tags: ["healthcare=dentist"] },
    { placeId: "b1", name: "Beck Wolf", ...at(0.3), tags: ["shop=bakery"] },
    { placeId: "c1", name: "Kaffeehaus", ...at(0.4), tags: ["amenity=cafe"] },
    { placeId: "r1", name: "Löwen", ...at(0.6), tags: ["amenity=restaurant"] },
  ];

  it("finds a dentist as Zahnarzt, dentiste, dentista, hammaslääkäri and in plural, by its tags", async () => {
    const local = provider(places);
    for (const word of ["dentist", "dentists", "Zahnarzt", "Zahnärzte", "dentiste", "dentista", "hammaslääkäri", "tandläkare"]) {
      expect(await names(local, word), word).toEqual(["Dr. Frick", "Praxis am Rhein"]);
    }
  });

  it("folds transliterations on both sides: Baeckerei is Bäckerei, and kahvila, ravintola, boulangerie mean what they say", async () => {
    const local = provider(places);
    expect(await names(local, "Baeckerei")).toEqual(["Beck Wolf"]);
    expect(await names(local, "Bäckerei")).toEqual(["Beck Wolf"]);
    expect(await names(local, "boulangerie")).toEqual(["Beck Wolf"]);
    expect(await names(local, "kahvila")).toEqual(["Kaffeehaus"]);
    expect(await names(local, "ravintola")).toEqual(["Löwen"]);
    expect(await names(local, "ristoranti")).toEqual(["Löwen"]);
  });
});

describe("precise matching", () => {
  const london: TestPlace[] = [
    { placeId: "bar", name: "The Jamaica Wine House", ...at(0.1), tags: ["amenity=bar"] },
    { placeId: "barclays", name: "Barclays", ...at(0.2), tags: ["amenity=bank"] },
    { placeId: "barbican", name: "Barbican Centre", ...at(0.3), tags: ["amenity=arts_centre"] },
    { placeId: "barber", name: "Barber Barber", ...at(0.4), tags: ["shop=hairdresser"] },
    { placeId: "bar-untagged", name: "Bar Luna", ...at(0.5), tags: [] },
    { placeId: "barclays-untagged", name: "Barclays Wealth", ...at(0.55), tags: [] },
    { placeId: "pub", name: "Ye Olde Cheshire Cheese", ...at(0.6), tags: ["amenity=pub"] },
    { placeId: "publisher", name: "Publishing House Ltd", ...at(0.7), tags: ["office=publisher"] },
    { placeId: "bakery", name: "Gail's", ...at(0.8), tags: ["shop=bakery"] },
    { placeId: "ted-baker", name: "Ted Baker", ...at(0.9), tags: ["shop=clothes"] },
    { placeId: "old-bank", name: "The Old Bank", ...at(1.0), tags: ["amenity=pub"] },
    { placeId: "bank", name: "Lloyds", ...at(1.1), tags: ["amenity=bank"] },
  ];

  it("a category word matches places of that category, never other businesses whose name merely starts like it", async () => {
    const local = provider(london);
    // Bar Luna has no category: its name alone says it is a bar (a whole word).
    expect(await names(local, "bar")).toEqual(["The Jamaica Wine House", "Bar Luna"]);
    expect(await names(local, "pub")).toEqual(["Ye Olde Cheshire Cheese", "The Old Bank"]);
    expect(await names(local, "bakery")).toEqual(["Gail's"]);
    expect(await names(local, "bank")).toEqual(["Barclays", "Lloyds"]);
    // A plain word still finds names: the business called Barclays, tagged or not.
    expect(await names(local, "barclays")).toEqual(["Barclays", "Barclays Wealth"]);
  });

  it("pizza finds pizza cuisines and the restaurants named for pizza (word stems), not a shop called Pizza", async () => {
    const local = provider([
      { placeId: "p1", name: "Da Mario", ...at(0.1), tags: ["amenity=restaurant", "cuisine=pizza"] },
      { placeId: "p2", name: "Pizzeria Roma", ...at(0.2), tags: ["amenity=restaurant"] },
      { placeId: "p3", name: "La Pizzetta", ...at(0.3), tags: ["amenity=fast_food", "cuisine=italian"] },
      { placeId: "p4", name: "Pizza Feet", ...at(0.4), tags: ["shop=shoes"] },
      { placeId: "p5", name: "Trattoria", ...at(0.5), tags: ["amenity=restaurant", "cuisine=italian"] },
    ]);
    // The tag match first, then the names, each by distance.
    expect(await names(local, "pizza")).toEqual(["Da Mario", "Pizzeria Roma", "La Pizzetta"]);
    expect(await names(local, "Pizzeria")).toEqual(["Da Mario", "Pizzeria Roma", "La Pizzetta"]);
    // A cuisine and a kind of place are both required.
    expect(await names(local, "italian restaurant")).toEqual(["Trattoria"]);
  });

  it("tolerates one wrong letter in words of five or more letters, and says what it searched for instead", async () => {
    const local = provider([
      { placeId: "r", name: "Löwen", ...at(0.1), tags: ["amenity=restaurant"] },
      { placeId: "s", name: "Starbucks", ...at(0.2), tags: ["amenity=cafe"], brand: "Starbucks" },
    ]);
    for (const [typed, meant] of [["resturant", "restaurant"], ["restaurnat", "restaurant"], ["Starbuks", "starbucks"], ["Zahnartz", "zahnarzt"]] as const) {
      const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: typed, cursor: null, signal });
      expect(page.didYouMean, typed).toBe(meant);
    }
    expect((await local.search({ center: VADUZ, radiusKm: 5, keywords: "resturant", cursor: null, signal })).leads.map((l) => l.name)).toEqual(["Löwen"]);
    // Found as typed: no correction. Short words and nonsense: none either.
    for (const typed of ["restaurant", "caf", "xqzvbnmkl"]) {
      expect((await local.search({ center: VADUZ, radiusKm: 5, keywords: typed, cursor: null, signal })).didYouMean ?? null, typed).toBeNull();
    }
  });
});

describe("ranking and order", () => {
  // As at Marienplatz: the restaurants 41 m and 43 m away come first, whatever their names.
  const places: TestPlace[] = [
    { placeId: "far", name: "Restaurant Restaurant am Markt", ...at(0.8), tags: ["amenity=restaurant"] },
    { placeId: "41m", name: "Ratskeller", ...at(0.041), tags: ["amenity=restaurant"] },
    { placeId: "43m", name: "Zum Franziskaner", ...at(0, 0.043), tags: ["amenity=restaurant"] },
    { placeId: "guide", name: "Restaurant Guide Verlag", ...at(0.01), tags: ["office=publisher"] },
    { placeId: "named", name: "Restaurant", ...at(0.02), tags: [] },
  ];

  it("a category match outranks a name-only match; among equals, distance decides", async () => {
    const local = provider(places);
    expect(await names(local, "restaurant")).toEqual(["Ratskeller", "Zum Franziskaner", "Restaurant Restaurant am Markt", "Restaurant"]);
  });

  it("sorts by distance or by name on request, across pages", async () => {
    const many: TestPlace[] = Array.from({ length: 45 }, (_, i) => ({
      placeId: `p${i}`,
      name: `${String.fromCharCode(90 - (i % 26))}${i} Grill`,
      ...at(0.05 * ((i * 7) % 45)),
      tags: i % 3 === 0 ? [] : ["amenity=restaurant"],
    }));
    const local = provider([...places, ...many]);
    const byDistance = await names(local, "restaurant", "distance");
    expect(byDistance[0]).toBe("Restaurant");
    expect(byDistance).toHaveLength(4 + 30);
    const byName = await names(local, "restaurant", "name");
    expect(byName).toEqual([...byName].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), "en")));
    expect(new Set(byName)).toEqual(new Set(byDistance));
  });
});

describe("one lead per business, and every branch", () => {
  it("keeps branches of one name with their own addresses, merges a business two sources have", async () => {
    const local = provider([
      { placeId: "hvb1", name: "HypoVereinsbank", ...at(0.1), street: "Marienplatz", housenumber: "1", tags: ["amenity=bank"] },
      { placeId: "hvb2", name: "HypoVereinsbank", ...at(0.159), street: "Kaufingerstraße", housenumber: "9", tags: ["amenity=bank"] },
      // The same bank from another source, 20 m off and without an address: one.
      { placeId: "hvb1-copy", name: "Hypovereinsbank", ...at(0.12), tags: ["amenity=bank"] },
      // Same name and address, 200 m apart (a poor geocoding): one.
      { placeId: "hvb2-copy", name: "HypoVereinsbank", ...at(0.359), street: "Kaufingerstrasse", housenumber: "9", tags: ["amenity=bank"] },
      // One address, 10 m apart, but each its own phone: two businesses (two floors of one building).
      { placeId: "salon1", name: "Salon Sirpa", ...at(0.5), street: "Aleksanterinkatu", housenumber: "52", phone: "+423 111 11 11", tags: ["shop=hairdresser"] },
      { placeId: "salon2", name: "Salon Sirpa", ...at(0.51), street: "Aleksanterinkatu", housenumber: "52", phone: "+423 222 22 22", tags: ["shop=hairdresser"] },
    ]);
    const page = await local.search({ center: VADUZ, radiusKm: 5, keywords: "bank", cursor: null, signal });
    expect(page.leads.map((l) => l.placeId)).toEqual(["hvb1", "hvb2"]);
    expect((await local.search({ center: VADUZ, radiusKm: 5, keywords: "hairdresser", cursor: null, signal })).leads.map((l) => l.placeId)).toEqual(["salon1", "salon2"]);
  });
});
