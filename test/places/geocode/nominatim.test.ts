import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/core/clock.js";
import { NominatimGeocoder } from "../../../src/places/geocode/nominatim.js";
import { SearchResult } from "../../../src/core/schemas/lead.js";
import { createTestInstance } from "../../helpers/instance.js";
import { startTestServer } from "../../helpers/server.js";
import { startNominatimStub } from "../../helpers/nominatim-stub.js";

interface Stub {
  url: string;
  requests: Array<{ q: string; format: string; limit: string; userAgent: string }>;
  failNext(status: number): void;
  close(): Promise<void>;
}
const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

const WESTMINSTER = { lat: 51.501009, lng: -0.1415876, name: "SW1A 1AA, London, United Kingdom" };

async function stub(): Promise<Stub> {
  const s = (await startNominatimStub({ places: { "sw1a 1aa": WESTMINSTER, "buckingham palace": WESTMINSTER } })) as Stub;
  stubs.push(s);
  return s;
}

describe("Nominatim as the geocoding fallback", () => {
  it("resolves a location the offline gazetteer does not know (a UK postcode without UK data), through the lead search", async () => {
    const s = await stub();
    const instance = createTestInstance({ env: { OUTREACH_NOMINATIM_URL: s.url } });
    const server = await startTestServer(instance.services);
    const res = await server.request("/api/v1/map-leads/search", { method: "POST", token: instance.token, json: { location: "SW1A 1AA", keywords: "cafe" } });
    expect(res.status).toBe(200);
    expect(SearchResult.parse(await res.json()).center).toEqual({ lat: WESTMINSTER.lat, lng: WESTMINSTER.lng });
    expect(s.requests).toEqual([expect.objectContaining({ q: "SW1A 1AA", format: "jsonv2", limit: "1", userAgent: expect.stringMatching(/^outreach\//) })]);
    // Vaduz is known offline: Nominatim is not asked.
    await server.request("/api/v1/map-leads/search", { method: "POST", token: instance.token, json: { location: "Vaduz, Liechtenstein", keywords: "cafe" } });
    expect(s.requests).toHaveLength(1);
  });

  it("without OUTREACH_NOMINATIM_URL the same location is a 400 naming it; Nominatim's own miss is the same 400", async () => {
    const offline = createTestInstance();
    const server = await startTestServer(offline.services);
    const res = await server.request("/api/v1/map-leads/search", { method: "POST", token: offline.token, json: { location: "SW1A 1AA", keywords: "cafe" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/location: "SW1A 1AA" is not a place we know/);
    const s = await stub();
    const online = createTestInstance({ env: { OUTREACH_NOMINATIM_URL: s.url } });
    const onlineServer = await startTestServer(online.services);
    const miss = await onlineServer.request("/api/v1/map-leads/search", { method: "POST", token: online.token, json: { location: "Nowhere-on-earth 99", keywords: "cafe" } });
    expect(miss.status).toBe(400);
  });

  it("a failing Nominatim is a provider_error before anything is counted", async () => {
    const s = await stub();
    const instance = createTestInstance({ plan: "free", env: { OUTREACH_NOMINATIM_URL: s.url } });
    const server = await startTestServer(instance.services);
    s.failNext(503);
    const res = await server.request("/api/v1/map-leads/search", { method: "POST", token: instance.token, json: { location: "SW1A 1AA", keywords: "cafe" } });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: "provider_error", error: expect.stringMatching(/nominatim: HTTP 503/), quota: { used: 0 } });
  });

  it("asks at most once a second, one request at a time, and answers repeats (misses included) from its cache", async () => {
    const s = await stub();
    const clock = new ManualClock();
    const slept: number[] = [];
    clock.onSleep((ms) => slept.push(ms));
    const geocoder = new NominatimGeocoder({ baseUrl: s.url, userAgent: "outreach/0.1 (test)", clock, timeoutMs: 5000 });
    const signal = new AbortController().signal;
    const [a, b, c] = await Promise.all([geocoder.search("SW1A 1AA", signal), geocoder.search("Buckingham Palace", signal), geocoder.search("nowhere", signal)]);
    expect(a).toEqual({ lat: WESTMINSTER.lat, lng: WESTMINSTER.lng });
    expect(b).toEqual(a);
    expect(c).toBeNull();
    expect(s.requests).toHaveLength(3);
    // The second and third waited for their second (the manual clock does not advance by itself).
    expect(slept).toEqual([1000, 1000]);
    expect(await geocoder.search("sw1a  1aa", signal)).toEqual(a);
    expect(await geocoder.search("nowhere", signal)).toBeNull();
    expect(s.requests).toHaveLength(3);
  });
});
