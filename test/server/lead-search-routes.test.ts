import { describe, expect, it } from "vitest";
import { Lead, SearchResult } from "../../src/core/schemas/lead.js";
import { Quota } from "../../src/core/schemas/quota.js";
import { createTestInstance } from "../helpers/instance.js";
import { failingProvider, fixedProvider, hangingProvider, lead, useProvider } from "../helpers/lead-search.js";
import { insertContacts, insertLocality, insertPlaces, offsetKm, VADUZ, vaduzPlaces, type TestPlace } from "../helpers/places.js";
import { readNdjson, startTestServer } from "../helpers/server.js";

const SEARCH = "/api/v1/map-leads/search";

async function setup(options: Parameters<typeof createTestInstance>[0] = {}, places: TestPlace[] = vaduzPlaces()) {
  const instance = createTestInstance(options);
  const db = instance.services.deps.db;
  insertPlaces(db, places);
  insertLocality(db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 120 });
  const server = await startTestServer(instance.services);
  const search = (json: unknown, init: { token?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}) =>
    server.request(SEARCH, { method: "POST", token: init.token ?? instance.token, json, headers: init.headers, signal: init.signal });
  const quota = async (token = instance.token) => Quota.parse(((await (await server.request("/api/v1/quota", { token })).json()) as { quota: unknown }).quota);
  return { instance, db, server, search, quota };
}

/** 45 pizzerias within 2 km of Vaduz: three pages. */
const pizzerias: TestPlace[] = Array.from({ length: 45 }, (_, i) => ({
  placeId: `osm:node:${1000 + i}`,
  name: `Pizzeria ${i}`,
  ...offsetKm(VADUZ.lat, VADUZ.lng, (i % 7) * 0.25, Math.floor(i / 7) * 0.25),
  categories: ["restaurant"],
}));

describe("POST /api/v1/map-leads/search", () => {
  it("answers a Search result whose leads satisfy every bound of the Lead schema, centred on the resolved location", async () => {
    const { search } = await setup({ plan: "free" });
    const res = await search({ location: "Vaduz", keywords: "dentist" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = SearchResult.parse(await res.json());
    expect(body.center).toEqual(VADUZ);
    expect(body.leads.map((l) => l.name)).toEqual(["Dentists Vaduz", "Dr. Meier", "Zahnarztpraxis Schaan"]);
    for (const l of body.leads) expect(Lead.safeParse(l).success).toBe(true);
    expect(body.leads[0]).toMatchObject({ domain: "dentists-vaduz.li", phone: "+423 232 00 00", rating: null });
    expect(body.nextPageToken).toBeNull();
    expect(body.quota).toEqual({ plan: "free", limit: 25, used: 1, remaining: 24, resetAt: "2026-11-23T00:00:00.000Z" });
    expect(body.enrichmentRetryToken).toBeNull();
  });

  it("rule 1: acts in the caller's active workspace (another workspace's quota is untouched)", async () => {
    const { instance, search, quota } = await setup({ plan: "free" });
    const bob = instance.services.identity.bootstrap({ name: "Bob", email: "bob@example.com", team: "Bobco", plan: "free" });
    await search({ location: "Vaduz", keywords: "dentist" });
    await search({ location: "Vaduz", keywords: "cafe" }, { token: bob.token });
    await search({ location: "Vaduz", keywords: "hotel" }, { token: bob.token });
    expect((await quota()).used).toBe(1);
    expect((await quota(bob.token)).used).toBe(2);
  });

  it("rule 2: a strict 5 km circle by default; an explicit radius widens it", async () => {
    const { search } = await setup();
    const near = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist", radiusKm: null })).json());
    expect(near.leads.map((l) => l.placeId)).not.toContain("osm:node:4");
    const wide = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "dentist", radiusKm: 10 })).json());
    expect(wide.leads.map((l) => l.placeId)).toContain("osm:node:4");
  });

  it("rules 3 and 5: following pages with the same parameters are free and never repeat a lead; the last page has no token", async () => {
    const { search, quota } = await setup({ plan: "free" }, pizzerias);
    const params = { location: "Vaduz", keywords: "pizzeria", lat: null, lng: null, locationPlaceId: null, radiusKm: 5 };
    const seen = new Set<string>();
    let pageToken: string | null = null;
    const sizes: number[] = [];
    do {
      const res = await search({ ...params, pageToken });
      expect(res.status).toBe(200);
      const body = SearchResult.parse(await res.json());
      sizes.push(body.leads.length);
      for (const l of body.leads) seen.add(l.placeId);
      expect(body.quota?.used).toBe(1);
      pageToken = body.nextPageToken;
    } while (pageToken);
    expect(sizes).toEqual([20, 20, 5]);
    expect(seen.size).toBe(45);
    expect((await quota()).used).toBe(1);
  });

  it("rejects a page token that was tampered with, used with other parameters, or by another workspace (400 invalid_request)", async () => {
    const { instance, search } = await setup({}, pizzerias);
    const first = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzeria" })).json());
    const token = first.nextPageToken!;
    const [body, sig] = token.split(".");
    const payload = JSON.parse(Buffer.from(body!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, cursor: "o:40" })).toString("base64url") + "." + sig;
    // One character of the signature changed (to another one: a fixed replacement equal to it left the token intact 1 run in 64).
    const flipped = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.slice(-1);
    for (const bad of [forged, flipped, "garbage"]) {
      const res = await search({ location: "Vaduz", keywords: "pizzeria", pageToken: bad });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request", error: expect.stringContaining("pageToken") });
    }
    for (const changed of [{ keywords: "pizza" }, { location: "Schaan" }, { radiusKm: 6 }, { lat: 47.1, lng: 9.5 }, { locationPlaceId: "osm:node:1" }, { sort: "name" }]) {
      const res = await search({ location: "Vaduz", keywords: "pizzeria", ...changed, pageToken: token });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request", error: expect.stringMatching(/pageToken: was issued for other search parameters/) });
    }
    // Another workspace (a second workspace of a new owner, made with the same data dir).
    const bob = instance.services.identity.bootstrap({ name: "Bob", email: "bob@example.com", team: "Bobco", plan: "self-hosted" });
    const res = await search({ location: "Vaduz", keywords: "pizzeria", pageToken: token }, { token: bob.token });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_request", error: expect.stringContaining("workspace") });
  });

  it("rule 3: a page token goes with the first request's lat/lng, with the center the first page returned, or with neither", async () => {
    const { search } = await setup({}, pizzerias);
    // Found by name: the client may send the returned centre on the next pages.
    const byName = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzeria" })).json());
    for (const coordinates of [{ lat: byName.center.lat, lng: byName.center.lng }, { lat: null, lng: null }, {}]) {
      const res = await search({ location: "Vaduz", keywords: "pizzeria", ...coordinates, pageToken: byName.nextPageToken });
      expect(res.status, JSON.stringify(coordinates)).toBe(200);
      expect(SearchResult.parse(await res.json()).leads).toHaveLength(20);
    }
    // Asked with coordinates: the same ones, the centre (here the same point), or none.
    const point = offsetKm(VADUZ.lat, VADUZ.lng, 0.4, 0.4);
    const byPoint = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzeria", ...point })).json());
    for (const coordinates of [point, byPoint.center, { lat: null, lng: null }]) {
      const res = await search({ location: "Vaduz", keywords: "pizzeria", ...coordinates, pageToken: byPoint.nextPageToken });
      expect(res.status).toBe(200);
    }
    // Any other point is another search.
    const moved = await search({ location: "Vaduz", keywords: "pizzeria", lat: point.lat + 0.01, lng: point.lng, pageToken: byPoint.nextPageToken });
    expect(moved.status).toBe(400);
    expect((await moved.json()).error).toMatch(/pageToken: was issued for other search parameters.*center it returned/);
  });

  it("addition: sort orders every page (bound into the page token; relevance by default, the same as no sort)", async () => {
    const { search } = await setup({}, pizzerias);
    const all = async (sort?: string) => {
      const placeIds: string[] = [];
      let pageToken: string | null = null;
      do {
        const res = await search({ location: "Vaduz", keywords: "pizzeria", ...(sort ? { sort } : {}), pageToken });
        expect(res.status).toBe(200);
        const body = SearchResult.parse(await res.json());
        placeIds.push(...body.leads.map((l) => l.placeId));
        pageToken = body.nextPageToken;
      } while (pageToken);
      return placeIds;
    };
    const byName = await all("name");
    const nameOf = new Map(pizzerias.map((p) => [p.placeId, p.name]));
    expect(byName.map((id) => nameOf.get(id))).toEqual([...pizzerias.map((p) => p.name)].sort());
    expect(await all("relevance")).toEqual(await all());
    // A default-order token continues a search that names the default.
    const first = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzeria" })).json());
    expect((await search({ location: "Vaduz", keywords: "pizzeria", sort: "relevance", pageToken: first.nextPageToken })).status).toBe(200);
    const bad = await search({ location: "Vaduz", keywords: "pizzeria", sort: "rating" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "invalid_request", error: expect.stringContaining("sort") });
  });

  it("addition: the result says what the location resolved to, on every page, and which keywords a typo was read as", async () => {
    const { search } = await setup({}, pizzerias);
    const first = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzerai" })).json());
    expect(first.resolvedLocation).toEqual({ name: "Vaduz", kind: "city", ...VADUZ });
    expect(first.didYouMean).toBe("pizzeria");
    expect(first.leads).toHaveLength(20);
    const second = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzerai", pageToken: first.nextPageToken })).json());
    expect(second.resolvedLocation).toEqual(first.resolvedLocation);
    expect(second.didYouMean).toBe("pizzeria");
    const typed = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzeria" })).json());
    expect(typed.didYouMean).toBeNull();
    const atPoint = SearchResult.parse(await (await search({ location: "anywhere", lat: 47.1, lng: 9.5, keywords: "pizzeria" })).json());
    expect(atPoint.resolvedLocation).toEqual({ name: "47.1, 9.5", kind: "coordinates", lat: 47.1, lng: 9.5 });
  });

  it("page tokens expire after 24 hours", async () => {
    const { instance, search } = await setup({}, pizzerias);
    const first = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "pizzeria" })).json());
    instance.clock.advance(24 * 3600 * 1000 + 1);
    const res = await search({ location: "Vaduz", keywords: "pizzeria", pageToken: first.nextPageToken });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/expired/);
  });

  it("rule 4: a page whose leads were all filtered out can still carry a next page token", async () => {
    const { instance, search } = await setup();
    const far = offsetKm(VADUZ.lat, VADUZ.lng, 30, 0);
    useProvider(
      instance.services,
      fixedProvider([
        { leads: [lead("g:1", far.lat, far.lng), lead("g:2", far.lat, far.lng)], nextCursor: "1" },
        { leads: [lead("g:3", VADUZ.lat, VADUZ.lng)], nextCursor: null },
      ]),
    );
    const first = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "x" })).json());
    expect(first.leads).toEqual([]);
    expect(first.nextPageToken).not.toBeNull();
    const second = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "x", pageToken: first.nextPageToken })).json());
    expect(second.leads.map((l) => l.placeId)).toEqual(["g:3"]);
    expect(second.nextPageToken).toBeNull();
  });

  it("rule 6: a larger radius is a new search and takes quota", async () => {
    const { search, quota } = await setup({ plan: "free" });
    await search({ location: "Vaduz", keywords: "dentist", radiusKm: 5 });
    await search({ location: "Vaduz", keywords: "dentist", radiusKm: 10 });
    expect((await quota()).used).toBe(2);
  });

  it("rule 7: a failing provider answers 500 provider_error and refunds the reservation", async () => {
    const { instance, search, quota } = await setup({ plan: "free" });
    useProvider(instance.services, failingProvider);
    const res = await search({ location: "Vaduz", keywords: "dentist" });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toMatchObject({ code: "provider_error", quota: { used: 0, remaining: 25, limit: 25 } });
    expect(body.error).not.toMatch(/503|upstream/);
    expect((await quota()).used).toBe(0);
    const row = instance.services.deps.db.prepare("SELECT refunded_at FROM search_reservations").get() as { refunded_at: string | null };
    expect(row.refunded_at).not.toBeNull();
  });

  it("rule 7: a provider failure during an NDJSON stream ends it with one error line carrying the refunded quota", async () => {
    const { instance, search, quota } = await setup({ plan: "free" });
    useProvider(instance.services, failingProvider);
    const res = await search({ location: "Vaduz", keywords: "dentist" }, { headers: { accept: "application/x-ndjson" } });
    expect(res.status).toBe(200);
    const lines = await readNdjson(res);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: "error", code: "provider_error", quota: { used: 0 } });
    expect((await quota()).used).toBe(0);
  });

  it("rule 7: a client that goes away after acceptance stops the work and is not refunded", async () => {
    const { instance, search, quota } = await setup({ plan: "free" });
    const hanging = hangingProvider();
    useProvider(instance.services, hanging.provider);
    const controller = new AbortController();
    const pending = search({ location: "Vaduz", keywords: "dentist" }, { headers: { accept: "application/x-ndjson" }, signal: controller.signal }).then(
      (res) => res.text(),
    );
    await hanging.started;
    controller.abort();
    await expect(pending).rejects.toThrow();
    await hanging.aborted;
    expect((await quota()).used).toBe(1);
    const row = instance.services.deps.db.prepare("SELECT refunded_at FROM search_reservations").get() as { refunded_at: string | null };
    expect(row.refunded_at).toBeNull();
  });

  it("drops a provider's lead that breaks a bound of the Lead schema (only leads toLead made are taken on trust)", async () => {
    const { instance, search } = await setup();
    const tooLong = { ...lead("g:1", VADUZ.lat, VADUZ.lng), name: "x".repeat(301) };
    const noAddress = { ...lead("g:2", VADUZ.lat, VADUZ.lng), address: "" };
    useProvider(instance.services, fixedProvider([{ leads: [tooLong, lead("g:3", VADUZ.lat, VADUZ.lng), noAddress], nextCursor: null }]));
    const json = SearchResult.parse(await (await search({ location: "Vaduz", keywords: "x" })).json());
    expect(json.leads.map((l) => l.placeId)).toEqual(["g:3"]);
    const lines = await readNdjson(await search({ location: "Vaduz", keywords: "x" }, { headers: { accept: "application/x-ndjson" } }));
    expect((lines.at(-1)!.data as { leads: Array<{ placeId: string }> }).leads.map((l) => l.placeId)).toEqual(["g:3"]);
  });

  it("rule 8: NDJSON framing: every line parses, progress first, exactly one terminal complete line with quota", async () => {
    const { search } = await setup({ plan: "free" });
    const res = await search({ location: "Vaduz", keywords: "restaurant" }, { headers: { accept: "application/x-ndjson" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const text = await res.text();
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as { type: string; data?: unknown });
    expect(lines[0]!.type).toBe("progress");
    expect(lines.filter((l) => l.type === "complete" || l.type === "error")).toHaveLength(1);
    expect(lines.at(-1)!.type).toBe("complete");
    const final = SearchResult.parse(lines.at(-1)!.data);
    expect(final.quota).toMatchObject({ used: 1 });
    expect(final.leads.map((l) => l.placeId)).toEqual(["osm:way:5"]);
  });

  it("streams enrichment progress as more progress lines and returns the enricher's retry token", async () => {
    const { instance, search } = await setup();
    useProvider(instance.services, instance.services.placeProvider, {
      async enrichForSearch(_team, leads, { onProgress }) {
        const first = leads.map((l, i) => (i === 0 ? { ...l, email: "info@dentists-vaduz.li" } : { ...l, enrichmentPending: true }));
        onProgress?.(first);
        return { leads: first, retryToken: "0b7c1f9e-2a57-4f1e-9a43-5d3d0e6f0a11" };
      },
    });
    const lines = await readNdjson(await search({ location: "Vaduz", keywords: "dentist" }, { headers: { accept: "application/x-ndjson" } }));
    expect(lines.map((l) => l.type)).toEqual(["progress", "progress", "complete"]);
    const final = SearchResult.parse(lines[2]!.data);
    expect(final.leads[0]!.email).toBe("info@dentists-vaduz.li");
    expect(final.enrichmentRetryToken).toBe("0b7c1f9e-2a57-4f1e-9a43-5d3d0e6f0a11");
  });

  it("403 quota_exceeded with the quota once the plan's daily searches are used, and resets at midnight UTC", async () => {
    const { instance, search } = await setup({ plan: "free" });
    instance.services.deps.db.prepare("UPDATE teams SET daily_searches_override = 2").run();
    expect((await search({ location: "Vaduz", keywords: "dentist" })).status).toBe(200);
    expect((await search({ location: "Vaduz", keywords: "cafe" })).status).toBe(200);
    const res = await search({ location: "Vaduz", keywords: "hotel" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "quota_exceeded", quota: { limit: 2, used: 2, remaining: 0 } });
    instance.clock.set("2026-11-23T00:00:00.000Z");
    expect((await search({ location: "Vaduz", keywords: "hotel" })).status).toBe(200);
  });

  it("never accepts more than the quota under concurrency: twice the limit in parallel → exactly the limit", async () => {
    const { search, quota } = await setup({ plan: "free" });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => search({ location: "Vaduz", keywords: i % 2 ? "dentist" : "cafe" })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 403)).toHaveLength(25);
    expect((await quota()).used).toBe(25);
  });

  it("unlimited plans report limit and remaining null", async () => {
    const { quota, search } = await setup({ plan: "self-hosted" });
    await search({ location: "Vaduz", keywords: "dentist" });
    expect(await quota()).toEqual({ plan: "self-hosted", limit: null, used: 1, remaining: null, resetAt: "2026-11-23T00:00:00.000Z" });
  });

  it("403 contact_limit_reached when the workspace is at its plan's contact limit, without taking quota", async () => {
    const { instance, search, quota } = await setup({ plan: "free" });
    instance.services.deps.db.prepare("UPDATE teams SET max_contacts_override = 3").run();
    insertContacts(instance.services.deps.db, instance.teamId, 3);
    const res = await search({ location: "Vaduz", keywords: "dentist" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "contact_limit_reached", quota: { used: 0 } });
    expect((await quota()).used).toBe(0);
  });

  it("401 unauthorized with code for a missing or bad token", async () => {
    const { server } = await setup();
    const none = await server.request(SEARCH, { method: "POST", json: { location: "Vaduz", keywords: "x" } });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: "unauthorized" });
    const bad = await server.request(SEARCH, { method: "POST", json: { location: "Vaduz", keywords: "x" }, token: "pat_nonsense" });
    expect(bad.status).toBe(401);
  });

  it("429 rate_limited with an integer Retry-After, X-RateLimit headers and the quota", async () => {
    const { search } = await setup({ plan: "free", config: { rateLimitPerMinute: 2 } });
    const ok = await search({ location: "Vaduz", keywords: "dentist" });
    expect(ok.headers.get("x-ratelimit-limit")).toBe("2");
    await search({ location: "Vaduz", keywords: "dentist" });
    const res = await search({ location: "Vaduz", keywords: "dentist" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ code: "rate_limited", quota: { used: 2, limit: 25 } });
  });

  describe("the search body's bounds: a 400 invalid_request naming the field, and no quota taken", () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["location", { location: "" }],
      ["location", { location: "x".repeat(301) }],
      ["location", { location: undefined }],
      ["keywords", { keywords: "" }],
      ["keywords", { keywords: "k".repeat(201) }],
      ["keywords", { keywords: 5 }],
      ["radiusKm", { radiusKm: 0 }],
      ["radiusKm", { radiusKm: 101 }],
      ["radiusKm", { radiusKm: 2.5 }],
      ["pageToken", { pageToken: "" }],
      ["pageToken", { pageToken: "t".repeat(8193) }],
      ["locationPlaceId", { locationPlaceId: "" }],
      ["locationPlaceId", { locationPlaceId: "p".repeat(513) }],
      ["lat", { lat: 90.5, lng: 9 }],
      ["lng", { lat: 47, lng: -180.5 }],
      ["surprise", { surprise: 1 }],
    ];
    it.each(cases)("%s: %j", async (field, change) => {
      const { search, quota } = await setup({ plan: "free" });
      const res = await search({ location: "Vaduz", keywords: "dentist", ...change });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe("invalid_request");
      expect(body.error).toContain(field);
      expect(body.quota).toMatchObject({ used: 0 });
      expect((await quota()).used).toBe(0);
    });
  });

  it("lat without lng (and the reverse) is a 400 naming the missing one", async () => {
    const { search } = await setup();
    const a = await search({ location: "Vaduz", keywords: "dentist", lat: 47.1 });
    expect(a.status).toBe(400);
    expect((await a.json()).error).toMatch(/^lng/);
    const b = await search({ location: "Vaduz", keywords: "dentist", lng: 9.5 });
    expect((await b.json()).error).toMatch(/^lat/);
  });

  it("explicit lat/lng win over the location text; a place ID centres on that place; an unknown one is a 400 naming it", async () => {
    const { search } = await setup();
    const schaan = offsetKm(VADUZ.lat, VADUZ.lng, 4.0, -1.0);
    const byPoint = SearchResult.parse(await (await search({ location: "Nowhere at all", keywords: "dentist", ...schaan, radiusKm: 1 })).json());
    expect(byPoint.center).toEqual(schaan);
    expect(byPoint.leads.map((l) => l.placeId)).toEqual(["osm:node:3"]);
    const byId = SearchResult.parse(await (await search({ location: "Schaan", keywords: "dentist", locationPlaceId: "osm:node:3", radiusKm: 1 })).json());
    expect(byId.center).toEqual({ lat: schaan.lat, lng: schaan.lng });
    const unknown = await search({ location: "Vaduz", keywords: "dentist", locationPlaceId: "osm:node:424242" });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatch(/^locationPlaceId/);
  });

  it("appears in the OpenAPI document with its NDJSON answer, and GET /quota as an addition", async () => {
    const { server } = await setup();
    const doc = await (await server.request("/api/v1/openapi.json")).json();
    const search = doc.paths["/api/v1/map-leads/search"].post;
    expect(Object.keys(search.responses["200"].content)).toEqual(expect.arrayContaining(["application/json", "application/x-ndjson"]));
    expect(doc.paths["/api/v1/quota"].get).toBeDefined();
  });

  it("an unknown location is a 400 that says so, and takes no quota", async () => {
    const { search, quota } = await setup({ plan: "free" });
    const res = await search({ location: "Qwxzzy Flurbington", keywords: "dentist" });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/location: "Qwxzzy Flurbington" is not a place we know/);
    expect((await quota()).used).toBe(0);
  });
});
