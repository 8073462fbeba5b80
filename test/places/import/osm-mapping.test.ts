import { describe, expect, test } from "vitest";
import { normaliseKey } from "../../../src/core/text.js";
import { osmCategoryLabels, overtureCategoryLabels } from "../../../src/places/vocabulary/category-labels.js";
import { osmElementToItem } from "../../../src/places/vocabulary/osm-tags.js";

describe("normaliseKey", () => {
  test("folds case, diacritics and whitespace so München, MUNCHEN and ' münchen ' meet", () => {
    expect(normaliseKey("München")).toBe("munchen");
    expect(normaliseKey("  MÜNCHEN ")).toBe("munchen");
    expect(normaliseKey("Saint-Étienne\n du  Rouvray")).toBe("saint-etienne du rouvray");
    expect(normaliseKey("Straße")).toBe("strasse");
  });
});

describe("category labels", () => {
  test("OSM values become the words people search for", () => {
    expect(osmCategoryLabels({ amenity: "restaurant", cuisine: "italian" }, ["amenity"])).toEqual(["restaurant", "italian restaurant"]);
    expect(osmCategoryLabels({ amenity: "dentist" }, ["amenity"])).toEqual(["dentist"]);
    expect(osmCategoryLabels({ healthcare: "dentist" }, ["healthcare"])).toEqual(["dentist"]);
    expect(osmCategoryLabels({ shop: "hairdresser" }, ["shop"])).toContain("hairdresser");
    expect(osmCategoryLabels({ office: "lawyer" }, ["office"])).toContain("lawyer");
    expect(osmCategoryLabels({ shop: "car_repair" }, ["shop"])[0]).toBe("car repair");
    expect(osmCategoryLabels({ craft: "stained_glass_maker" }, ["craft"])).toEqual(["stained glass maker"]);
  });

  test("Overture category ids become labels, with the generic noun too", () => {
    expect(overtureCategoryLabels("italian_restaurant", [])).toEqual(["italian restaurant", "restaurant"]);
    expect(overtureCategoryLabels("dentist", ["health_and_medical"])).toEqual(["dentist", "health and medical"]);
  });
});

describe("OSM tags → a place", () => {
  test("maps contact:*, bare facebook=, addr:* and moves a Facebook 'website' to socials", () => {
    const item = osmElementToItem(
      "node",
      42,
      {
        name: "  Café  Zentral ",
        amenity: "cafe",
        "contact:website": "https://www.facebook.com/cafezentral",
        "contact:phone": "+423 232 00 00",
        "contact:email": "hallo@cafe-zentral.li",
        instagram: "cafezentral",
        "addr:street": "Städtle",
        "addr:housenumber": "5",
        "addr:postcode": "9490",
        "addr:city": "Vaduz",
        "addr:country": "LI",
        opening_hours: "Mo-Fr 08:00-18:00",
      },
      47.14,
      9.52,
    );
    expect(item.kind).toBe("place");
    if (item.kind !== "place") return;
    expect(item.place).toMatchObject({
      placeId: "osm:node:42",
      name: "Café Zentral",
      address: "Städtle 5, 9490 Vaduz",
      country: "LI",
      website: null,
      phone: "+423 232 00 00",
      email: "hallo@cafe-zentral.li",
      socials: { facebook: "https://www.facebook.com/cafezentral", instagram: "https://www.instagram.com/cafezentral" },
      categories: ["cafe"],
      openingHours: "Mo-Fr 08:00-18:00",
      rating: null,
    });
  });

  test("infrastructure and unnamed businesses are skipped with their reason", () => {
    expect(osmElementToItem("node", 1, { amenity: "bench", name: "Bank" }, 1, 1)).toEqual({ kind: "skip", reason: "infrastructure" });
    expect(osmElementToItem("node", 2, { shop: "bakery" }, 1, 1)).toEqual({ kind: "skip", reason: "unnamed" });
  });
});
