import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/core/clock.js";
import { OverpassProvider } from "../../../src/places/sources/overpass.js";
import { testVocabulary, VADUZ } from "../../helpers/places.js";
import { VADUZ_ELEMENTS } from "../../helpers/overpass-elements.js";
import { startOverpassStub } from "../../helpers/overpass-stub.js";

interface Stub {
  url: string;
  queries: Array<{ ql: string; userAgent: string }>;
  stats: { maxConcurrent: number };
  failNext(status: number, retryAfter?: number): void;
  close(): Promise<void>;
}
const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});


async function setup(options: { latencyMs?: number; cacheSeconds?: number } = {}) {
  const stub = (await startOverpassStub({ elements: VADUZ_ELEMENTS, latencyMs: options.latencyMs ?? 0 })) as Stub;
  stubs.push(stub);
  const clock = new ManualClock();
  const slept: number[] = [];
  clock.onSleep((ms) => slept.push(ms));
  const overpass = new OverpassProvider({ url: stub.url, userAgent: "outreach/0.1 (test)", clock, timeoutMs: 10_000, cacheSeconds: options.cacheSeconds ?? 600, vocabulary: testVocabulary });
  const search = (keywords: string, radiusKm = 5) => overpass.search({ center: VADUZ, radiusKm, keywords, cursor: null, signal: new AbortController().signal });
  return { stub, clock, slept, overpass, search };
}

describe("Overpass (live OpenStreetMap) as a place source", () => {
  it("asks for the category by the vocabulary's tags and maps elements as the importer does (same osm: IDs, values, skips)", async () => {
    const { search, stub } = await setup();
    const page = await search("restaurant");
    expect(page.leads.map((l) => l.placeId)).toEqual(["osm:node:101", "osm:way:202"]);
    expect(page.leads[0]).toMatchObject({ name: "Restaurant Adler", website: "https://adler-vaduz.li/", phone: "+423 232 21 31", address: "Herrengasse 2, 9490 Vaduz" });
    expect(page.requests).toEqual({ overpass: 1 });
    const ql = stub.queries[0]!.ql;
    expect(ql).toMatch(/^\[out:json\]\[timeout:\d+\];/);
    expect(ql).toContain('nwr["amenity"~"^(.*;)? *restaurant *(;.*)?$",i](around:5000,');
    expect(ql).toMatch(/out center tags;$/);
    expect(stub.queries[0]!.userAgent).toBe("outreach/0.1 (test)");
  });

  it("understands the keywords as the local search does: other languages, cuisines, hosts' names; never a bank called Pizza", async () => {
    const { search } = await setup();
    expect((await search("Zahnarzt")).leads.map((l) => l.name)).toEqual(["Dentists Vaduz"]);
    expect((await search("pizza")).leads.map((l) => l.name).sort()).toEqual(["Pizzeria Roma", "Quick Pizza"]);
    expect((await search("Bäckerei")).leads.map((l) => l.name)).toEqual(["Bäckerei Wanger"]);
    expect((await search("parking")).leads).toEqual([]);
  });

  it("reuses an answer for the configured time, then asks again", async () => {
    const { search, stub, clock } = await setup({ cacheSeconds: 60 });
    await search("restaurant");
    expect((await search("restaurant")).requests).toEqual({ overpass: 0 });
    expect(stub.queries).toHaveLength(1);
    clock.advance(61_000);
    await search("restaurant");
    expect(stub.queries).toHaveLength(2);
  });

  it("is polite: one request at a time, a short Retry-After waited out once, a long one or a 504 fails the source", async () => {
    const { search, stub, slept } = await setup({ latencyMs: 30 });
    await Promise.all([search("restaurant"), search("bakery"), search("dentist")]);
    expect(stub.stats.maxConcurrent).toBe(1);
    stub.failNext(429, 2);
    expect((await search("cafe")).leads).toEqual([]);
    expect(slept).toEqual([2000]);
    stub.failNext(429, 120);
    await expect(search("pub")).rejects.toMatchObject({ name: "ServiceError", message: "overpass: HTTP 429, no free slot (retry after 120 s)" });
    stub.failNext(504);
    await expect(search("bar")).rejects.toMatchObject({ name: "ServiceError", status: 504 });
  });

  it("resolves an osm: place ID live", async () => {
    const { overpass } = await setup();
    const place = await overpass.resolvePlaceId("osm:way:202", new AbortController().signal);
    expect(place).toEqual({ center: { lat: VADUZ_ELEMENTS[1]!.lat, lng: VADUZ_ELEMENTS[1]!.lng }, name: "Pizzeria Roma" });
    expect(await overpass.resolvePlaceId("google:abc", new AbortController().signal)).toBeUndefined();
  });
});
