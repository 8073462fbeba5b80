import { describe, expect, test } from "vitest";
import { normaliseKey } from "../../../src/core/text.js";
import { osmCategoryLabels, overtureCategoryLabels } from "../../../src/providers/places/category-labels.js";
import {
  cleanCategories,
  cleanCountry,
  cleanEmail,
  cleanPhone,
  cleanSocial,
  cleanWebsite,
  domainOf,
  formatAddress,
} from "../../../src/providers/places/lead-values.js";
import { osmElementToItem } from "../../../src/providers/places/osm-tags.js";

describe("normaliseKey", () => {
  test("folds case, diacritics and whitespace so München, MUNCHEN and ' münchen ' meet", () => {
    expect(normaliseKey("München")).toBe("munchen");
    expect(normaliseKey("  MÜNCHEN ")).toBe("munchen");
    expect(normaliseKey("Saint-Étienne\n du  Rouvray")).toBe("saint-etienne du rouvray");
    expect(normaliseKey("Straße")).toBe("strasse");
  });
});

describe("lead value cleaning (service-api.md 2.3)", () => {
  test("a website without a scheme gets https://; garbage and non-web schemes are dropped", () => {
    expect(cleanWebsite("www.pizzeriatoscana.li")).toBe("https://www.pizzeriatoscana.li/");
    expect(cleanWebsite("http://example.com/a b")).toBe("http://example.com/ab");
    expect(cleanWebsite("https://a.li;https://b.li")).toBe("https://a.li/");
    expect(cleanWebsite("n/a")).toBeNull();
    expect(cleanWebsite("ftp://example.com")).toBeNull();
    expect(cleanWebsite("https://user:pw@example.com")).toBeNull();
    expect(cleanWebsite("https://" + "a".repeat(2100) + ".com")).toBeNull();
    expect(domainOf("https://www.kunstmuseum.li/de")).toBe("kunstmuseum.li");
  });

  test("phones keep their formatting, need 5+ digits, and never exceed 64 characters", () => {
    expect(cleanPhone(" +423 373 95 09 ")).toBe("+423 373 95 09");
    expect(cleanPhone("+41 44 123 45 67;+41 79 000 00 00")).toBe("+41 44 123 45 67");
    expect(cleanPhone("call us")).toBeNull();
    expect(cleanPhone("123")).toBeNull();
    expect(cleanPhone("+1 " + "2".repeat(70))).toBeNull();
  });

  test("emails lose mailto:, keep the local part's case, lower-case the domain, need a real TLD", () => {
    expect(cleanEmail("mailto:Info@Example.LI")).toBe("Info@example.li");
    expect(cleanEmail("logo@2x.png")).toBeNull();
    expect(cleanEmail("not an email")).toBeNull();
  });

  test("socials accept profile URLs and bare handles, never share links or other networks", () => {
    expect(cleanSocial("facebook", "PizzeriaToscana")).toBe("https://www.facebook.com/PizzeriaToscana");
    expect(cleanSocial("instagram", "@acme")).toBe("https://www.instagram.com/acme");
    expect(cleanSocial("facebook", "https://www.facebook.com/acme?ref=tracking")).toBe("https://www.facebook.com/acme");
    expect(cleanSocial("facebook", "https://www.facebook.com/sharer.php?u=x")).toBeNull();
    expect(cleanSocial("twitter", "https://x.com/acme")).toBe("https://x.com/acme");
    expect(cleanSocial("linkedin", "https://instagram.com/acme")).toBeNull();
  });

  test("categories are deduplicated, each 1..80 characters, at most 30", () => {
    const many = Array.from({ length: 40 }, (_, i) => `label ${i}`);
    expect(cleanCategories(["dentist", "Dentist", " ", "x".repeat(100)])).toEqual(["dentist", "x".repeat(80)]);
    expect(cleanCategories(many)).toHaveLength(30);
  });

  test("country is kept only as ISO alpha-2", () => {
    expect(cleanCountry("li")).toBe("LI");
    expect(cleanCountry("Liechtenstein")).toBeNull();
  });

  test("the address is never empty: street line, else city/postcode, else country, else coordinates", () => {
    const base = { street: null, housenumber: null, postcode: null, city: null, country: null, lat: 47.1, lng: 9.5 };
    expect(formatAddress({ ...base, street: "Städtle", housenumber: "32", postcode: "9490", city: "Vaduz" })).toBe("Städtle 32, 9490 Vaduz");
    expect(formatAddress({ ...base, city: "Vaduz" })).toBe("Vaduz");
    expect(formatAddress({ ...base, country: "LI" })).toBe("LI");
    expect(formatAddress(base)).toBe("47.10000, 9.50000");
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

describe("OSM tags → a place (field-notes.md §1)", () => {
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
