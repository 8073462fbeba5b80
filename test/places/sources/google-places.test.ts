import { afterEach, describe, expect, it } from "vitest";
import { distanceKm } from "../../../src/core/geo.js";
import { GooglePlacesProvider, TEXT_SEARCH_FIELD_MASK } from "../../../src/places/sources/google-places.js";
import { RESULT_CAP, startGooglePlacesStub, syntheticPlaces } from "../../helpers/google-places-stub.js";

interface StubPlace {
  id: string;
  name: string;
  lat: number;
  lng: number;
  inside?: boolean;
}
interface Stub {
  url: string;
  apiKey: string;
  requests: Array<{ path: string; body?: Record<string, unknown>; fieldMask?: string }>;
  failNext(code: number, status: string, message: string, count?: number): void;
  close(): Promise<void>;
}

const MONACO = { lat: 43.7384, lng: 7.4246 };
const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function stubWith(places: unknown[]): Promise<Stub> {
  const stub = (await startGooglePlacesStub({ places })) as Stub;
  stubs.push(stub);
  return stub;
}

function provider(stub: Stub, options: { maxRequests?: number; apiKey?: string } = {}) {
  return new GooglePlacesProvider({ apiKey: options.apiKey ?? stub.apiKey, baseUrl: stub.url, timeoutMs: 5000, maxRequests: options.maxRequests ?? 100 });
}

const signal = () => new AbortController().signal;

async function allPages(google: GooglePlacesProvider, request: { center: typeof MONACO; radiusKm: number; keywords: string }) {
  const leads = [];
  let cursor: string | null = null;
  let requests = 0;
  const warnings: string[] = [];
  do {
    const page = await google.search({ ...request, cursor, signal: signal() });
    leads.push(...page.leads);
    requests += page.requests?.google ?? 0;
    warnings.push(...(page.warnings ?? []));
    cursor = page.nextCursor;
  } while (cursor);
  return { leads, requests, warnings };
}

describe("Google Places (New) Text Search as a place source", () => {
  it("tiles a circle past the 60-result cap: every place inside found, none outside, each once", async () => {
    const places = syntheticPlaces({ center: MONACO, radiusKm: 10, count: 150, inside: 100 }) as StubPlace[];
    const stub = await stubWith(places);
    const google = provider(stub);
    const { leads, requests } = await allPages(google, { center: MONACO, radiusKm: 10, keywords: "restaurant" });
    const inside = new Set(places.filter((p) => p.inside).map((p) => `google:${p.id}`));
    expect(inside.size).toBe(100);
    const found = leads.filter((l) => inside.has(l.placeId));
    expect(found.length).toBeGreaterThanOrEqual(95);
    expect(leads.every((l) => distanceKm(MONACO, l) <= 10)).toBe(true);
    expect(new Set(leads.map((l) => l.placeId)).size).toBe(leads.length);
    // The first query (the circle's bounding box) hit the cap: tiles were queried beyond it.
    expect(requests).toBe(stub.requests.length);
    expect(requests).toBeGreaterThan(RESULT_CAP / 20);
    for (const r of stub.requests) {
      expect(r.path).toBe("/v1/places:searchText");
      expect(r.fieldMask).toBe(TEXT_SEARCH_FIELD_MASK);
      expect(r.body).toMatchObject({ textQuery: "restaurant", pageSize: 20, locationRestriction: { rectangle: { low: {}, high: {} } } });
    }
    // Following pages come from the kept list: no further request.
    expect(stub.requests.length).toBe(requests);
  });

  it("maps Google's fields onto a Lead: id prefix, rating, international phone, website, readable types", async () => {
    const stub = await stubWith([
      { id: "ChIJabc", name: "Le Louis XV", lat: 43.7393, lng: 7.4274, address: "Place du Casino, 98000 Monaco", types: ["fine_dining_restaurant", "restaurant", "point_of_interest", "establishment"], website: "https://www.ducasse-paris.com/", phone: "+377 98 06 88 64", nationalPhone: "98 06 88 64", rating: 4.6 },
    ]);
    const page = await provider(stub).search({ center: MONACO, radiusKm: 2, keywords: "restaurant", cursor: null, signal: signal() });
    expect(page.leads).toEqual([
      expect.objectContaining({
        placeId: "google:ChIJabc",
        name: "Le Louis XV",
        address: "Place du Casino, 98000 Monaco",
        website: "https://www.ducasse-paris.com/",
        domain: "ducasse-paris.com",
        phone: "+377 98 06 88 64",
        rating: 4.6,
        categories: ["fine dining restaurant", "restaurant"],
      }),
    ]);
    expect(page.requests).toEqual({ google: 1 });
  });

  it("stops at the request budget and says so in a warning", async () => {
    const stub = await stubWith(syntheticPlaces({ center: MONACO, radiusKm: 10, count: 150, inside: 100 }));
    const { requests, warnings } = await allPages(provider(stub, { maxRequests: 4 }), { center: MONACO, radiusKm: 10, keywords: "restaurant" });
    expect(requests).toBe(4);
    expect(stub.requests.length).toBe(4);
    expect(warnings.join(" ")).toMatch(/google: stopped after 4 requests/);
  });

  it("turns Google's errors into ServiceErrors that name the status (5xx, 429, a bad key)", async () => {
    const stub = await stubWith([]);
    stub.failNext(503, "UNAVAILABLE", "The service is currently unavailable.");
    const request = { center: MONACO, radiusKm: 1, keywords: "cafe", cursor: null, signal: signal() };
    await expect(provider(stub).search(request)).rejects.toMatchObject({ name: "ServiceError", status: 503, message: "google: UNAVAILABLE: The service is currently unavailable." });
    stub.failNext(429, "RESOURCE_EXHAUSTED", "Quota exceeded.");
    await expect(provider(stub).search(request)).rejects.toMatchObject({ status: 429, message: "google: RESOURCE_EXHAUSTED: Quota exceeded." });
    await expect(provider(stub, { apiKey: "wrong" }).search(request)).rejects.toThrow(/google: INVALID_ARGUMENT: API key not valid/);
  });

  it("resolves a google: place ID with Place Details, and leaves other IDs to other sources", async () => {
    const stub = await stubWith([{ id: "ChIJxyz", name: "Café de Paris", lat: 43.7396, lng: 7.4277, address: "Place du Casino, Monaco", types: ["cafe"] }]);
    const google = provider(stub);
    expect(await google.resolvePlaceId("google:ChIJxyz", signal())).toEqual({ center: { lat: 43.7396, lng: 7.4277 }, name: "Place du Casino, Monaco" });
    expect(stub.requests.at(-1)).toMatchObject({ path: "/v1/places/ChIJxyz", fieldMask: "location,formattedAddress" });
    expect(await google.resolvePlaceId("google:ChIJunknown", signal())).toBeUndefined();
    const before = stub.requests.length;
    expect(await google.resolvePlaceId("osm:node:1", signal())).toBeUndefined();
    expect(stub.requests.length).toBe(before);
  });

  it("the stub enforces the protocol: a circle restriction and a missing field mask are refused", async () => {
    const stub = await stubWith([]);
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${stub.url}/v1/places:searchText`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": stub.apiKey, ...headers }, body: JSON.stringify(body) });
    const circle = await post({ "x-goog-fieldmask": "places.id" }, { textQuery: "cafe", locationRestriction: { circle: { center: { latitude: 1, longitude: 1 }, radius: 100 } } });
    expect(circle.status).toBe(400);
    expect(await circle.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
    const noMask = await post({}, { textQuery: "cafe" });
    expect(noMask.status).toBe(400);
    expect(((await noMask.json()) as { error: { message: string } }).error.message).toMatch(/FieldMask is a required parameter/);
  });
});
