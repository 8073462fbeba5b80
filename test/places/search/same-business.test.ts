import { describe, expect, it } from "vitest";
import { ONE_SOURCE, sameBusiness, SEVERAL_SOURCES, type BusinessRecord } from "../../../src/places/search/same-business.js";
import { offsetKm, VADUZ } from "../../helpers/places.js";

/** A record `eastKm` east of Vaduz's centre. */
function at(eastKm: number, name: string, fields: Partial<BusinessRecord> = {}): BusinessRecord {
  return { name, phone: null, website: null, ...offsetKm(VADUZ.lat, VADUZ.lng, 0, eastKm), ...fields };
}

const street = (street: string, housenumber: string) => ({ street, housenumber });

/** [what the pair is, a, b, one business within one source, one business across sources] */
const PAIRS: Array<[string, BusinessRecord, BusinessRecord, boolean, boolean]> = [
  ["same name, 10 m apart, nothing else known", at(0, "Café Wolf"), at(0.01, "Café Wolf"), true, true],
  ["same name folded (case, accents, punctuation)", at(0, "Café Wolf"), at(0.01, "CAFE WOLF!"), true, true],
  ["same name, 40 m apart, no address", at(0, "Café Wolf"), at(0.04, "Café Wolf"), false, true],
  ["same name, 80 m apart, no address", at(0, "Café Wolf"), at(0.08, "Café Wolf"), false, false],
  ["same name and street address 100 m apart (a node and a large building)", at(0, "Adler", street("Städtle", "1")), at(0.1, "Adler", street("Städtle", "1")), true, true],
  ["street abbreviated: Kaufingerstr. 9 = Kaufingerstrasse 9", at(0, "Hugendubel", street("Kaufingerstr.", "9")), at(0.1, "Hugendubel", street("Kaufingerstrasse", "9")), true, true],
  ["chain branches 10 m apart, each with its own address", at(0, "Spar", street("Städtle", "1")), at(0.01, "Spar", street("Städtle", "3")), false, false],
  ["chain branches 3 km apart sharing website and phone", at(0, "Spar", { website: "https://spar.li/", phone: "+423 200 00 00" }), at(3, "Spar", { website: "https://spar.li/", phone: "+423 200 00 00" }), false, false],
  ["same name 5 m apart, each with its own phone (two floors)", at(0, "Salon Anna", { phone: "+423 232 11 11" }), at(0.005, "Salon Anna", { phone: "+423 232 22 22" }), false, false],
  ["same name 5 m apart, each with its own website", at(0, "Adler", { website: "https://adler.li/" }), at(0.005, "Adler", { website: "https://adler-vaduz.li/" }), false, false],
  ["same name, one phone in international and national form", at(0, "Löwen", { phone: "+423 232 11 11" }), at(0.01, "Löwen", { phone: "232 11 11" }), true, true],
  ["same name, German number with and without the trunk 0", at(0, "Löwen", { phone: "+49 89 123456" }), at(0.01, "Löwen", { phone: "089 123456" }), true, true],
  ["name variants 20 m apart sharing a phone", at(0, "Löwen", { phone: "+423 232 11 11" }), at(0.02, "Gasthaus zum Löwen", { phone: "+423 232 11 11" }), false, true],
  ["name variants 500 m apart sharing a website (www or not)", at(0, "Café Wolf", { website: "https://cafe-wolf.li/" }), at(0.5, "Wolf Coffee", { website: "https://www.cafe-wolf.li/menu" }), false, true],
  ["name variants sharing a website 1.5 km apart", at(0, "Café Wolf", { website: "https://cafe-wolf.li/" }), at(1.5, "Wolf Coffee", { website: "https://cafe-wolf.li/" }), false, false],
  ["name variants 1 m apart, nothing shared", at(0, "Adler"), at(0.001, "Restaurant Adler AG", { phone: "+423 999 99 99" }), false, false],
  ["the same place ID 2 km apart (a live source's copy)", at(0, "Adler", { placeId: "osm:node:1" }), at(2, "Adler", { placeId: "osm:node:1" }), true, true],
];

describe("one business or two (the one same-business rule)", () => {
  it.each(PAIRS)("%s", (_what, a, b, oneSource, severalSources) => {
    expect(sameBusiness(a, b, ONE_SOURCE)).toBe(oneSource);
    expect(sameBusiness(b, a, ONE_SOURCE)).toBe(oneSource);
    expect(sameBusiness(a, b, SEVERAL_SOURCES)).toBe(severalSources);
    expect(sameBusiness(b, a, SEVERAL_SOURCES)).toBe(severalSources);
  });
});
