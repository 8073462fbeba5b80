import { describe, expect, it } from "vitest";
import { isBoundedLead, toLead, withSources, type RawLead } from "../../src/core/lead-values.js";
import { Lead } from "../../src/core/schemas/lead.js";
import { seeded } from "../helpers/seeded-random.js";

/**
 * The lead search trusts what `toLead` makes to be within the Lead schema's bounds
 * (`isBoundedLead`) instead of parsing each lead again: this holds it to that on generated
 * input of every kind a source sends (too long, empty, blank, astral characters, numbers
 * out of range, wrong types).
 */
const random = seeded(27);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const PIECES = ["a", "Z", "ß", "é", " ", "\t", "\n", "🍕", "\u200b", "-", ".", "@", "/", ":", "x".repeat(90), "😀".repeat(40)];

function text(max: number): string {
  const length = Math.floor(random() ** 2 * max);
  let out = "";
  while (out.length < length) out += pick(PIECES);
  return out;
}

function url(): string {
  const host = pick(["example.li", "xn--mller-kva.de", "sub." + "a".repeat(Math.floor(random() * 70)) + ".com", "n/a", "localhost", "127.0.0.1", text(40)]);
  return pick(["https://", "http://", "", "ftp://", "https://user:pw@"]) + host + pick(["", "/", "/" + text(2500)]);
}

/** A required field: mostly valid, so that most generated leads are made and checked. */
const mostly = <T>(valid: T, others: readonly unknown[]): T | unknown => (random() < 0.8 ? valid : pick(others));

function rawLead(i: number): RawLead {
  return {
    placeId: mostly(`osm:node:${i}`, ["", "p".repeat(600), "p".repeat(512), i, null]),
    name: mostly(pick([text(400), "Café Müller"]), ["   ", "", null, 7]),
    address: mostly(pick([text(700), "Städtle 1, 9490 Vaduz"]), ["", null]),
    fallbackAddress: pick([undefined, null, text(600)]),
    lat: mostly(pick([47.1, -90, 90, random() * 180 - 90]), [91, -91, Number.NaN, "47", 0]),
    lng: mostly(pick([9.5, -180, 180, random() * 360 - 180]), [181, Number.NaN, 0]),
    website: pick([url(), url(), null, 42]),
    phone: pick(["+423 232 00 00", text(100), "0".repeat(80), null, "abc"]),
    email: pick(["info@example.li", text(300) + "@example.li", "not an email", "a@b", null]),
    rating: pick([4.5, 5, 0, -1, 6, Number.NaN, "4", null]),
    categories: pick([[], ["restaurant"], Array.from({ length: 50 }, () => text(120)), ["", " "], "restaurant", null]),
    socials: pick([null, {}, { facebook: url(), instagram: url(), twitter: text(3000), linkedin: 5 }, "x"]),
  };
}

describe("toLead and withSources: what they make is within the Lead schema's bounds", () => {
  it("every lead toLead makes from generated input parses, and is known to be in bounds", () => {
    let made = 0;
    for (let i = 0; i < 3000; i++) {
      const lead = toLead(rawLead(i));
      if (!lead) continue;
      made++;
      const parsed = Lead.safeParse(lead);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(isBoundedLead(lead)).toBe(true);
      const copy = withSources(lead, ["local"]);
      expect(Lead.safeParse(copy).success).toBe(true);
      expect(isBoundedLead(copy)).toBe(true);
    }
    // The generator is not so hostile that nothing gets through.
    expect(made).toBeGreaterThan(1000);
  });

  it("a lead made elsewhere, or given sources out of bounds, is not taken on trust", () => {
    const lead = toLead({ placeId: "osm:node:1", name: "Café", address: "Städtle 1", lat: 47.1, lng: 9.5 })!;
    expect(isBoundedLead({ ...lead })).toBe(false);
    expect(isBoundedLead(withSources({ ...lead }, ["local"]))).toBe(false);
    expect(isBoundedLead(withSources(lead, [""]))).toBe(false);
    expect(isBoundedLead(withSources(lead, ["a", "b", "c", "d", "e", "f"]))).toBe(false);
    expect(isBoundedLead(withSources(lead, ["s".repeat(41)]))).toBe(false);
    expect(isBoundedLead(withSources(lead, ["local", "google"]))).toBe(true);
  });
});
