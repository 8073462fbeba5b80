import { describe, expect, it } from "vitest";
import type { Lead } from "../../../src/core/schemas/lead.js";
import { mergeLeads, mergeRankedLists } from "../../../src/places/sources/lead-merge.js";
import { offsetKm, VADUZ } from "../../helpers/places.js";

function lead(placeId: string, name: string, km: [number, number], fields: Partial<Lead> = {}): Lead {
  return {
    placeId,
    name,
    address: "Städtle 1, 9490 Vaduz",
    ...offsetKm(VADUZ.lat, VADUZ.lng, km[0], km[1]),
    website: null,
    domain: null,
    phone: null,
    rating: null,
    categories: [],
    email: null,
    socials: null,
    sources: [placeId.split(":")[0] === "google" ? "google" : "local"],
    ...fields,
  };
}

describe("merging the lists of several sources", () => {
  it("one business by place ID, website domain or international phone within 1 km, or name within 50 m", () => {
    const local = [
      lead("osm:node:1", "Adler", [0, 0], { email: "info@adler.li" }),
      lead("osm:node:2", "Café Wolf", [0.5, 0], { website: "https://cafe-wolf.li/", domain: "cafe-wolf.li" }),
      lead("osm:node:3", "Löwen", [1, 0], { phone: "+423 232 11 11" }),
      lead("osm:node:4", "Sonne", [1.5, 0]),
    ];
    const google = [
      lead("google:a", "Restaurant Adler AG", [0.001, 0], { phone: "+423 999 99 99" }),
      lead("google:b", "Wolf Coffee", [0.52, 0.01], { website: "https://www.cafe-wolf.li/menu", domain: "cafe-wolf.li", rating: 4.5 }),
      lead("google:c", "Gasthaus zum Löwen", [1.2, 0], { phone: "+423 232 11 11", rating: 4.1 }),
      lead("google:d", "sonne", [1.53, 0], { rating: 3.9 }),
      lead("google:e", "Adler", [0.3, 0]),
    ];
    const merged = mergeRankedLists([local, google]);
    expect(merged.map((l) => [l.placeId, l.sources])).toEqual([
      ["osm:node:1", ["local"]],
      ["google:a", ["google"]],
      ["osm:node:2", ["local", "google"]],
      ["osm:node:3", ["local", "google"]],
      ["osm:node:4", ["local", "google"]],
      ["google:e", ["google"]],
    ]);
    // "Adler" 300 m away is another business; the Google record of Adler without a shared fact stays apart too.
    // The Google record says more (website and rating): its website wins; the place ID stays the first.
    expect(merged.find((l) => l.placeId === "osm:node:2")).toMatchObject({ rating: 4.5, website: "https://www.cafe-wolf.li/menu" });
  });

  it("branches of a chain (same domain and phone) more than 1 km apart stay two leads", () => {
    const a = lead("osm:node:1", "Spar", [0, 0], { website: "https://spar.li/", domain: "spar.li", phone: "+423 200 00 00" });
    const b = lead("google:x", "Spar", [3, 0], { website: "https://spar.li/", domain: "spar.li", phone: "+423 200 00 00" });
    expect(mergeRankedLists([[a], [b]])).toHaveLength(2);
  });

  it("the richer record wins field by field; categories and sources are joined; the first place ID stays", () => {
    const poor = lead("osm:node:9", "Dentists Vaduz", [0, 0], { email: "info@dentists.li", categories: ["dentist"], website: "https://dentists-vaduz.li/", domain: "dentists-vaduz.li" });
    const rich = lead("google:z", "Dentists Vaduz", [0, 0], {
      website: "https://www.dentists.li/",
      domain: "dentists.li",
      phone: "+423 232 00 00",
      rating: 4.8,
      categories: ["dentist", "health"],
    });
    expect(mergeLeads(poor, rich)).toMatchObject({
      placeId: "osm:node:9",
      website: "https://www.dentists.li/",
      domain: "dentists.li",
      phone: "+423 232 00 00",
      email: "info@dentists.li",
      rating: 4.8,
      categories: ["dentist", "health"],
      sources: ["local", "google"],
    });
  });
});
