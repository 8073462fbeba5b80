import { expect, it } from "vitest";
import { distanceKm } from "../../src/core/geo.js";
import { Lead, type SearchResult } from "../../src/core/schemas/lead.js";
import { createTestInstance, type TestInstance } from "../helpers/instance.js";
import { dataDescribe, liechtensteinPbf } from "../helpers/places-data.js";
import { readNdjson, startTestServer, type TestServer } from "../helpers/server.js";

/** Every page of a search, following nextPageToken. */
async function allPages(server: TestServer, token: string, body: Record<string, unknown>): Promise<{ pages: SearchResult[]; leads: Lead[] }> {
  const pages: SearchResult[] = [];
  let pageToken: string | null = null;
  do {
    const res = await server.request("/api/v1/map-leads/search", { method: "POST", token, json: { ...body, pageToken } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as SearchResult;
    pages.push(page);
    pageToken = page.nextPageToken;
  } while (pageToken && pages.length < 20);
  return { pages, leads: pages.flatMap((p) => p.leads) };
}

dataDescribe("lead search on the real Liechtenstein extract, imported by the real importer", () => {
  let instance: TestInstance;
  let server: TestServer;

  async function setup() {
    instance = createTestInstance();
    await instance.services.placesImport.importFile(liechtensteinPbf());
    server = await startTestServer(instance.services);
  }

  it("finds about 50 restaurants within 5 km of Vaduz, 16 or so with a website, over pages of at most 20", async () => {
    await setup();
    const { pages, leads } = await allPages(server, instance.token, { location: "Vaduz", keywords: "restaurant", radiusKm: 5 });
    expect(leads.length).toBeGreaterThanOrEqual(42);
    expect(leads.length).toBeLessThanOrEqual(60);
    expect(pages.every((p) => p.leads.length <= 20)).toBe(true);
    expect(new Set(leads.map((l) => l.placeId)).size).toBe(leads.length);
    const withWebsite = leads.filter((l) => l.website).length;
    expect(withWebsite).toBeGreaterThanOrEqual(10);
    expect(withWebsite).toBeLessThanOrEqual(24);
    const center = pages[0]!.center;
    expect(distanceKm(center, { lat: 47.141, lng: 9.5209 })).toBeLessThan(2);
    for (const lead of leads) {
      expect(Lead.safeParse(lead).success).toBe(true);
      expect(distanceKm(center, lead)).toBeLessThanOrEqual(5.0001);
      expect(lead.placeId).toMatch(/^osm:(node|way):\d+$/);
    }
    // Only the first page counts against the quota (self-hosted: unlimited, but counted).
    expect(pages[0]!.quota).toMatchObject({ plan: "self-hosted", limit: null, used: 1 });
  });

  it("geocodes postcodes, localities and 'city, country' from the imported data and the gazetteer", async () => {
    await setup();
    for (const location of ["9490 Vaduz", "Schaan", "Vaduz, Liechtenstein", "vaduz"]) {
      const res = await server.request("/api/v1/map-leads/search", { method: "POST", token: instance.token, json: { location, keywords: "restaurant" } });
      expect(res.status, location).toBe(200);
      const body = (await res.json()) as SearchResult;
      expect(body.center.lat, location).toBeGreaterThan(47.0);
      expect(body.center.lat, location).toBeLessThan(47.3);
      expect(body.leads.length, location).toBeGreaterThan(0);
    }
    const unknown = await server.request("/api/v1/map-leads/search", { method: "POST", token: instance.token, json: { location: "Xyzzyville Nowhere", keywords: "restaurant" } });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).code).toBe("invalid_request");
  });

  it("streams NDJSON whose complete line equals the JSON answer's leads", async () => {
    await setup();
    const json = (await (await server.request("/api/v1/map-leads/search", { method: "POST", token: instance.token, json: { location: "Schaan", keywords: "hairdresser", radiusKm: 10 } })).json()) as SearchResult;
    const res = await server.request("/api/v1/map-leads/search", {
      method: "POST",
      token: instance.token,
      json: { location: "Schaan", keywords: "hairdresser", radiusKm: 10 },
      headers: { accept: "application/x-ndjson" },
    });
    expect(res.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    const lines = await readNdjson(res);
    expect(lines[0]!.type).toBe("progress");
    expect(lines.filter((l) => l.type === "complete" || l.type === "error")).toHaveLength(1);
    const complete = lines.at(-1)!;
    expect(complete.type).toBe("complete");
    expect((complete.data as SearchResult).leads.map((l) => l.placeId)).toEqual(json.leads.map((l) => l.placeId));
    expect(json.leads.length).toBeGreaterThan(0);
  });
});
