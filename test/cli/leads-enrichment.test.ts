import { describe, expect, it } from "vitest";
import type { SearchResult } from "../../src/core/schemas/lead.js";
import { runCli } from "../helpers/cli.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { startTestServer } from "../helpers/server.js";

async function setup() {
  const pages = { open: '<a href="mailto:praxis@open-dental.li">Mail</a>' };
  const sites = await startFixtureSites({
    "open-dental.li": { "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(pages.open) },
    "private-dental.li": { "/robots.txt": "User-agent: *\nDisallow: /", "/": "<p>x@private-dental.li</p>" },
    "down-dental.li": { "/": { status: 503, body: "maintenance" } },
  });
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 5000 } });
  t.services.enrichment.useResolver(fixtureLookup);
  insertPlaces(t.services.deps.db, [
    { placeId: "osm:node:1", name: "Open Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 0.5, 0), categories: ["dentist"], website: sites.url("open-dental.li") },
    { placeId: "osm:node:2", name: "Private Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 1, 0), categories: ["dentist"], website: sites.url("private-dental.li") },
    { placeId: "osm:node:3", name: "Down Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 1.5, 0), categories: ["dentist"], website: sites.url("down-dental.li") },
  ]);
  const server = await startTestServer(t.services);
  const search = (json: unknown) => server.request("/api/v1/map-leads/search", { method: "POST", token: t.token, json });
  const args = ["--base-url", server.url, "--token", t.token, "leads", "search", "--lat", String(VADUZ.lat), "--lng", String(VADUZ.lng), "--keywords", "dentist"];
  return { args, pages, search };
}

describe("outreach leads search: website failures and --refresh", () => {
  it("prints each lead's reason in --json and a summary of failures on stderr", async () => {
    const { args } = await setup();
    const result = await runCli([...args, "--json"]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as SearchResult;
    const byName = Object.fromEntries(body.leads.map((l) => [l.name, l]));
    expect(byName["Open Dental"]!.enrichmentError).toBeUndefined();
    expect(byName["Private Dental"]!.enrichmentError).toMatchObject({ code: "robots" });
    expect(byName["Down Dental"]!.enrichmentError).toMatchObject({ code: "http_status", status: 503 });
    expect(result.stderr).toContain("website enrichment failed for 2 of 3 sites:");
    expect(result.stderr).toMatch(/1 robots\.txt disallows/);
    expect(result.stderr).toMatch(/1 HTTP error/);
  });

  it("the API takes refresh as a boolean and names the field otherwise", async () => {
    const { search } = await setup();
    const bad = await search({ location: `${VADUZ.lat},${VADUZ.lng}`, lat: VADUZ.lat, lng: VADUZ.lng, keywords: "dentist", refresh: "yes" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/refresh/);
    const good = await search({ location: `${VADUZ.lat},${VADUZ.lng}`, lat: VADUZ.lat, lng: VADUZ.lng, keywords: "dentist", refresh: true });
    expect(good.status).toBe(200);
  });

  it("--refresh reads the websites again instead of answering from the cache", async () => {
    const { args, pages } = await setup();
    const email = async (extra: string[]) => {
      const result = await runCli([...args, ...extra, "--json"]);
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as SearchResult).leads.find((l) => l.name === "Open Dental")!.email;
    };
    expect(await email([])).toBe("praxis@open-dental.li");
    pages.open = '<a href="mailto:empfang@open-dental.li">Mail</a>';
    expect(await email([])).toBe("praxis@open-dental.li");
    expect(await email(["--refresh"])).toBe("empfang@open-dental.li");
  });
});
