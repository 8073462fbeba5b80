import { afterEach, describe, expect, it } from "vitest";
import { SearchResult } from "../../src/core/schemas/lead.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, VADUZ } from "../helpers/places.js";
import { readNdjson, startTestServer } from "../helpers/server.js";
import { startGooglePlacesStub } from "../helpers/google-places-stub.js";

const SEARCH = "/api/v1/map-leads/search";

interface Stub {
  url: string;
  apiKey: string;
  requests: unknown[];
  failNext(code: number, status: string, message: string, count?: number): void;
  close(): Promise<void>;
}
const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

/** Google's record of the local index's "Dentists Vaduz" (same international phone) and one business only Google has. */
const GOOGLE_PLACES = [
  { id: "ChIJdentists", name: "Zahnarztpraxis Dentists Vaduz AG", lat: VADUZ.lat + 0.0004, lng: VADUZ.lng, address: "Städtle 1, 9490 Vaduz, Liechtenstein", types: ["dentist", "health"], phone: "+423 232 00 00", rating: 4.7 },
  { id: "ChIJsmile", name: "Smile Dental Studio", lat: VADUZ.lat + 0.005, lng: VADUZ.lng + 0.004, address: "Aeulestrasse 5, 9490 Vaduz, Liechtenstein", types: ["dentist"], website: "https://smile-dental.li/", rating: 4.9 },
];

async function setup(env: NodeJS.ProcessEnv = {}, options: { plan?: string } = {}) {
  const stub = (await startGooglePlacesStub({ places: GOOGLE_PLACES })) as Stub;
  stubs.push(stub);
  const instance = createTestInstance({ plan: options.plan, env: { OUTREACH_GOOGLE_PLACES_KEY: stub.apiKey, OUTREACH_GOOGLE_PLACES_URL: stub.url, ...env } });
  const db = instance.services.deps.db;
  insertPlaces(db, [
    { placeId: "osm:node:1", name: "Dentists Vaduz", ...VADUZ, categories: ["dentist"], website: "https://dentists-vaduz.li/", phone: "+423 232 00 00", email: "info@dentists-vaduz.li" },
    { placeId: "osm:node:2", name: "Dr. Meier", lat: VADUZ.lat - 0.003, lng: VADUZ.lng, categories: ["dentist"] },
  ]);
  insertLocality(db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 2 });
  const server = await startTestServer(instance.services);
  const search = (json: unknown, headers: Record<string, string> = {}) => server.request(SEARCH, { method: "POST", token: instance.token, json, headers });
  const quota = async () => ((await (await server.request("/api/v1/quota", { token: instance.token })).json()) as { quota: { used: number } }).quota;
  return { instance, stub, search, quota };
}

describe("one search over several place sources", () => {
  it("sources: [google] answers from Google only, with google: IDs, the request count and each lead's source", async () => {
    const { search, stub } = await setup();
    const res = await search({ location: "Vaduz", keywords: "dentist", sources: ["google"] });
    expect(res.status).toBe(200);
    const body = SearchResult.parse(await res.json());
    expect(body.leads.map((l) => l.placeId).sort()).toEqual(["google:ChIJdentists", "google:ChIJsmile"]);
    expect(body.leads.every((l) => l.sources?.join() === "google")).toBe(true);
    expect(body.requests).toEqual({ google: stub.requests.length });
    expect(stub.requests.length).toBe(1);
  });

  it("by default reads local and Google, merges one business's two records field by field, and keeps the rest", async () => {
    const { search } = await setup();
    const body = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist" })).json());
    const dentists = body.leads.find((l) => l.placeId === "osm:node:1")!;
    // Same international phone within 1 km: one lead, the local record's email and website, Google's rating.
    expect(dentists).toMatchObject({ email: "info@dentists-vaduz.li", website: "https://dentists-vaduz.li/", rating: 4.7, sources: ["local", "google"] });
    expect(body.leads.map((l) => l.placeId).sort()).toEqual(["google:ChIJsmile", "osm:node:1", "osm:node:2"]);
    expect(body.warnings).toBeUndefined();
  });

  it("a failing source while another answers: 200 with a warning naming it (also on the NDJSON progress line)", async () => {
    const { search, stub, quota } = await setup();
    stub.failNext(503, "UNAVAILABLE", "The service is currently unavailable.");
    const body = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist", sources: ["local", "google"] })).json());
    expect(body.leads.map((l) => l.placeId).sort()).toEqual(["osm:node:1", "osm:node:2"]);
    expect(body.warnings).toEqual([expect.stringMatching(/^google: UNAVAILABLE: The service is currently unavailable\.; results are from the other sources$/)]);
    expect((await quota()).used).toBe(1);
    stub.failNext(429, "RESOURCE_EXHAUSTED", "Quota exceeded.");
    const lines = await readNdjson(await search({ location: "Vaduz", keywords: "dentist", radiusKm: 4, sources: ["local", "google"] }, { accept: "application/x-ndjson" }));
    expect(lines[0]).toMatchObject({ type: "progress", data: { warnings: [expect.stringMatching(/google: RESOURCE_EXHAUSTED/)] } });
    expect(lines.at(-1)).toMatchObject({ type: "complete", data: { warnings: [expect.stringMatching(/google: RESOURCE_EXHAUSTED/)] } });
  });

  it("no source answering: 500 provider_error naming the failure, and the quota refunded", async () => {
    const { search, stub, quota } = await setup({}, { plan: "free" });
    stub.failNext(500, "INTERNAL", "Internal error encountered.");
    const res = await search({ location: "Vaduz", keywords: "dentist", sources: ["google"] });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: string; error: string; quota: { used: number } };
    expect(body).toMatchObject({ code: "provider_error", quota: { used: 0 } });
    expect(body.error).toMatch(/no place source answered \(google: INTERNAL: Internal error encountered\.\)/);
    expect((await quota()).used).toBe(0);
  });

  it("an unconfigured or unknown source is a 400 naming it", async () => {
    const { search } = await setup();
    const overpass = await search({ location: "Vaduz", keywords: "dentist", sources: ["overpass"] });
    expect(overpass.status).toBe(400);
    expect(((await overpass.json()) as { error: string }).error).toMatch(/sources\[0\]: "overpass" is not configured on this server \(configured: local, google/);
    const unknown = await search({ location: "Vaduz", keywords: "dentist", sources: ["bing"] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/sources/);
  });

  it("a google: locationPlaceId is resolved with Place Details", async () => {
    const { search, stub } = await setup();
    const body = SearchResult.parse(await (await search({ location: "Smile", keywords: "dentist", locationPlaceId: "google:ChIJsmile", radiusKm: 1 })).json());
    expect(body.center).toEqual({ lat: GOOGLE_PLACES[1]!.lat, lng: GOOGLE_PLACES[1]!.lng });
    expect(stub.requests.some((r) => (r as { path: string }).path === "/v1/places/ChIJsmile")).toBe(true);
  });

  it("sort applies to outside sources and merged lists too", async () => {
    const { search } = await setup();
    const byName = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist", sort: "name" })).json());
    expect(byName.leads.map((l) => l.name)).toEqual(["Dentists Vaduz", "Dr. Meier", "Smile Dental Studio"]);
    const byDistance = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist", sort: "distance", sources: ["google"] })).json());
    expect(byDistance.leads.map((l) => l.placeId)).toEqual(["google:ChIJdentists", "google:ChIJsmile"]);
  });

  it("OUTREACH_PLACES_SOURCES sets the default: local only although Google is configured", async () => {
    const { search, stub } = await setup({ OUTREACH_PLACES_SOURCES: "local" });
    const body = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist" })).json());
    expect(body.leads.every((l) => l.sources?.join() === "local")).toBe(true);
    expect(stub.requests.length).toBe(0);
  });
});
