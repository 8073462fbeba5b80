import { describe, expect, it } from "vitest";
import type { StreamLine } from "../../src/core/contract/index.js";
import { ndjsonLines } from "../../src/server/ndjson-line.js";

const lead = (i: number, name = `Pizzeria ${i}`) => ({
  placeId: `osm:node:${i}`,
  name,
  address: `Städtle ${i}, 9490 Vaduz`,
  lat: 47.14 + i / 1000,
  lng: 9.52,
  website: i % 2 ? `https://example-${i}.li/` : null,
  domain: i % 2 ? `example-${i}.li` : null,
  phone: null,
  rating: null,
  categories: ["restaurant"],
  email: null,
  socials: null,
  sources: ["local"],
});

/** What the stream wrote before: the line's JSON and a newline. */
const plain = (line: StreamLine) => JSON.stringify(line) + "\n";

describe("ndjsonLines", () => {
  it("writes a search's progress and complete lines sharing one leads array byte for byte as JSON.stringify does", () => {
    const leads = Array.from({ length: 20 }, (_, i) => lead(i));
    const center = { lat: 47.141, lng: 9.5209 };
    const progress = { type: "progress", data: { center, leads, nextPageToken: "tok", resolvedLocation: { name: "Vaduz", kind: "city", ...center }, didYouMean: null } };
    const complete = {
      type: "complete",
      data: { center, leads, nextPageToken: "tok", quota: { plan: "free", limit: 25, used: 1, remaining: 24, resetAt: "2026-11-23T00:00:00.000Z" }, enrichmentRetryToken: null },
    };
    const lines = ndjsonLines();
    expect(lines(progress as StreamLine)).toBe(plain(progress as StreamLine));
    expect(lines(complete as StreamLine)).toBe(plain(complete as StreamLine));
  });

  it("serialises a new leads array afresh (enrichment's snapshots), and lines without leads as they are", () => {
    const first = [lead(1), lead(2)];
    const enriched = [{ ...lead(1), email: "info@example-1.li" }, { ...lead(2), enrichmentPending: true }];
    const lines = ndjsonLines();
    const sequence = [
      { type: "progress", data: { leads: first } },
      { type: "progress", data: { leads: enriched } },
      { type: "progress", data: { leads: first } },
      { type: "error", error: "boom", code: "internal_error" },
      { type: "complete", data: { imported: 3 } },
      { type: "complete", data: { leads: [] } },
    ] as StreamLine[];
    for (const line of sequence) expect(lines(line)).toBe(plain(line));
  });

  it("keeps text that looks like the leads key or holds control characters where it is, escaped as JSON does", () => {
    const leads = [lead(1, 'Bar "leads":[] \u0000 \n "\u2028'), lead(2, "Café Müller 🍕")];
    const line = { type: "progress", data: { leads, warnings: ['local: "leads":[] is not a place', "\u0000leads:x"], resolvedLocation: { name: "\u0000leads" } } } as StreamLine;
    const text = ndjsonLines()(line);
    expect(text).toBe(plain(line));
    expect(JSON.parse(text)).toEqual(line);
  });
});
