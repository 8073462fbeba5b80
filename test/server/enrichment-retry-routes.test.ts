import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { EnrichmentRetryResult, SearchResult, type Lead } from "../../src/core/schemas/lead.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { placeLead } from "../helpers/leads.js";
import { insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { readNdjson, startTestServer } from "../helpers/server.js";

const PATH = "/api/v1/map-leads/enrichment-retry";

async function setup() {
  const sites = await startFixtureSites({
    "garage.de": { "/": { delayMs: 50, body: '<a href="/kontakt">Kontakt</a>' }, "/kontakt": "<p>werkstatt@garage.de</p>" },
    "empty.de": { "/": "<p>No address here.</p>" },
  });
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"] } });
  t.services.enrichment.useResolver(fixtureLookup);
  const server = await startTestServer(t.services);
  const leads = [placeLead("1", sites.url("garage.de")), placeLead("2", sites.url("empty.de"))];
  const token = t.services.enrichment.issueRetryToken(t.teamId, leads.map((l) => ({ ...l, enrichmentPending: true })));
  return { sites, t, server, token };
}

describe("POST /api/v1/map-leads/enrichment-retry", () => {
  it("answers JSON {leads}, all with enrichmentPending false, found or not", async () => {
    const { t, server, token } = await setup();
    const res = await server.request(PATH, { method: "POST", token: t.token, json: { token } });
    expect(res.status).toBe(200);
    const body = EnrichmentRetryResult.parse(await res.json());
    expect(body.leads.map((l) => [l.placeId, l.email, l.enrichmentPending])).toEqual([
      ["place-1", "werkstatt@garage.de", false],
      ["place-2", null, false],
    ]);
  });

  it("streams progress lines as leads finish and ends with one complete line", async () => {
    const { t, server, token } = await setup();
    const res = await server.request(PATH, { method: "POST", token: t.token, json: { token }, headers: { accept: "application/x-ndjson" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = await readNdjson(res);
    expect(lines.map((l) => l.type)).toEqual(["progress", "progress", "complete"]);
    const complete = EnrichmentRetryResult.parse(lines[2]!.data);
    expect(complete.leads.every((l) => l.enrichmentPending === false)).toBe(true);
    expect(complete.leads[0]!.email).toBe("werkstatt@garage.de");
  });

  it("lets exactly one of two concurrent redemptions through", async () => {
    const { t, server, token } = await setup();
    const [a, b] = await Promise.all([0, 1].map(() => server.request(PATH, { method: "POST", token: t.token, json: { token } })));
    const statuses = [a!.status, b!.status].sort();
    expect(statuses).toEqual([200, 404]);
    const loser = [a!, b!].find((r) => r.status === 404)!;
    expect(await loser.json()).toMatchObject({ code: "retry_token_invalid" });
  });

  it("answers the same 404 for unknown, used, expired and other workspaces' tokens", async () => {
    const { t, server, token } = await setup();
    const post = (tok: string, bearer = t.token) => server.request(PATH, { method: "POST", token: bearer, json: { token: tok } });
    const bodies: unknown[] = [];
    const unknown = await post(crypto.randomUUID());
    bodies.push(await unknown.json());
    expect(unknown.status).toBe(404);

    const other = t.services.identity.createTeam({ name: "Globex", ownerId: t.userId, plan: "self-hosted" });
    const foreign = t.services.enrichment.issueRetryToken(other.id, [placeLead("9", null)]);
    const foreignRes = await post(foreign);
    expect(foreignRes.status).toBe(404);
    bodies.push(await foreignRes.json());

    expect((await post(token)).status).toBe(200);
    const used = await post(token);
    expect(used.status).toBe(404);
    bodies.push(await used.json());

    const late = t.services.enrichment.issueRetryToken(t.teamId, [placeLead("8", null)]);
    t.clock.advance(15 * 60_000);
    const expired = await post(late);
    expect(expired.status).toBe(404);
    bodies.push(await expired.json());
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0]).toMatchObject({ code: "retry_token_invalid" });
  });

  it("rejects a bad body with 400 invalid_request naming the field, and a missing token with 401", async () => {
    const { t, server } = await setup();
    const notUuid = await server.request(PATH, { method: "POST", token: t.token, json: { token: "abc" } });
    expect(notUuid.status).toBe(400);
    const body = (await notUuid.json()) as { error: string; code: string };
    expect(body.code).toBe("invalid_request");
    expect(body.error).toContain("token");
    const extra = await server.request(PATH, { method: "POST", token: t.token, json: { token: crypto.randomUUID(), leads: [] } });
    expect(extra.status).toBe(400);
    const anonymous = await server.request(PATH, { method: "POST", json: { token: crypto.randomUUID() } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: "unauthorized" });
  });

  it("is in the OpenAPI document as endpoint 2 with NDJSON", async () => {
    const { server } = await setup();
    const doc = (await (await server.request("/api/v1/openapi.json")).json()) as { paths: Record<string, { post?: Record<string, unknown> }> };
    const op = doc.paths["/api/v1/map-leads/enrichment-retry"]?.post;
    expect(op?.operationId).toBe("retryEnrichment");
    expect(JSON.stringify(op)).toContain("application/x-ndjson");
    expect(JSON.stringify(op)).toContain("404");
    const SwaggerParser = (await import("@apidevtools/swagger-parser")).default;
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });
});

describe("a slow site through the API: pending in the search, read by the retry", () => {
  it("a site answering after the search's site budget and within the retry's is pending with a token, not a failure; the retry finds its email", async () => {
    // A real server that always answers slowly: 1.5 s per request (beyond the search's 300 ms per site, well within the retry's 20 s).
    const slow = (body: string) => (req: IncomingMessage, res: ServerResponse) => {
      const timer = setTimeout(() => res.destroyed || res.writeHead(200, { "content-type": "text/html" }).end(body), 1500);
      req.on("close", () => clearTimeout(timer));
    };
    const sites = await startFixtureSites({
      "slow-bakery.de": { "/robots.txt": slow("User-agent: *\nAllow: /"), "/": slow('<p>Backstube: <a href="mailto:backstube@slow-bakery.de">schreiben</a></p>') },
      "down-bakery.de": { "/": { status: 503, body: "maintenance" } },
      "quick-bakery.de": { "/": "<p>hallo@quick-bakery.de</p>" },
    });
    const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 5000, enrichSiteBudgetMs: 300, enrichRetryBudgetMs: 20_000 } });
    t.services.enrichment.useResolver(fixtureLookup);
    const hosts = ["slow-bakery.de", "down-bakery.de", "quick-bakery.de"];
    insertPlaces(
      t.services.deps.db,
      hosts.map((host, i) => ({ placeId: `osm:node:${i + 1}`, name: `Bakery ${i + 1}`, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.2 + i * 0.1, 0), categories: ["bakery"], website: sites.url(host) })),
    );
    const server = await startTestServer(t.services);
    const res = await server.request("/api/v1/map-leads/search", { method: "POST", token: t.token, json: { location: `${VADUZ.lat},${VADUZ.lng}`, lat: VADUZ.lat, lng: VADUZ.lng, keywords: "bakery", radiusKm: 5 } });
    expect(res.status).toBe(200);
    const search = SearchResult.parse(await res.json());
    const byHost = (leads: Lead[], host: string) => leads.find((l) => l.website?.includes(host))!;
    expect(byHost(search.leads, "slow-bakery.de")).toMatchObject({ email: null, enrichmentPending: true });
    expect(byHost(search.leads, "slow-bakery.de").enrichmentError).toBeUndefined();
    // Answers that say the site cannot be read stay failures; a fast site is simply found.
    expect(byHost(search.leads, "down-bakery.de")).toMatchObject({ enrichmentError: { code: "http_status", status: 503 } });
    expect(byHost(search.leads, "down-bakery.de").enrichmentPending).toBeUndefined();
    expect(byHost(search.leads, "quick-bakery.de").email).toBe("hallo@quick-bakery.de");
    expect(search.enrichmentRetryToken).not.toBeNull();

    const retry = await server.request(PATH, { method: "POST", token: t.token, json: { token: search.enrichmentRetryToken } });
    expect(retry.status).toBe(200);
    const retried = EnrichmentRetryResult.parse(await retry.json());
    // The token covers the pending site only, and the retry's own budget reads it.
    expect(retried.leads.map((l) => [l.website, l.email, l.enrichmentPending])).toEqual([[sites.url("slow-bakery.de"), "backstube@slow-bakery.de", false]]);
    expect(retried.leads[0]!.enrichmentError).toBeUndefined();
  }, 60_000);
});
