import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { startGooglePlacesStub } from "../helpers/google-places-stub.js";
import { VADUZ_ELEMENTS } from "../helpers/overpass-elements.js";
import { startOverpassStub } from "../helpers/overpass-stub.js";
import { insertPlaces, VADUZ } from "../helpers/places.js";
import { openInstance } from "../../src/services/instance.js";

interface Closable {
  close(): Promise<void>;
}
const stubs: Closable[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function setup() {
  const overpass = (await startOverpassStub({ elements: VADUZ_ELEMENTS })) as Closable & { url: string; queries: unknown[]; failNext(status: number, retryAfter?: number): void };
  const google = (await startGooglePlacesStub({
    places: [{ id: "ChIJadler", name: "Restaurant Adler Vaduz", lat: VADUZ_ELEMENTS[0]!.lat, lng: VADUZ_ELEMENTS[0]!.lng, address: "Herrengasse 2, 9490 Vaduz, Liechtenstein", types: ["restaurant"], phone: "+423 232 21 31", rating: 4.4 }],
  })) as Closable & { url: string; apiKey: string; requests: unknown[]; failNext(code: number, status: string, message: string): void };
  stubs.push(overpass, google);
  const dataDir = tempDir();
  const env = cliEnv({ OUTREACH_DATA_DIR: dataDir, OUTREACH_OVERPASS_URL: overpass.url, OUTREACH_GOOGLE_PLACES_KEY: google.apiKey, OUTREACH_GOOGLE_PLACES_URL: google.url });
  // One place in the local index: the same OSM node Overpass returns (they merge by ID).
  const instance = openInstance({ dataDir, env });
  insertPlaces(instance.services.deps.db, [{ placeId: "osm:node:101", name: "Restaurant Adler", lat: VADUZ_ELEMENTS[0]!.lat, lng: VADUZ_ELEMENTS[0]!.lng, categories: ["restaurant"], email: "info@adler-vaduz.li" }]);
  instance.close();
  const run = (argv: string[]) => runCli(["leads", "search", "--lat", String(VADUZ.lat), "--lng", String(VADUZ.lng), "--keywords", "restaurant", ...argv], { env });
  return { overpass, google, run };
}

describe("leads search --source (end to end through the CLI and the API)", () => {
  it("--source overpass: live OSM only, osm: IDs, the request counted on stderr", async () => {
    const { run } = await setup();
    const result = await run(["--source", "overpass", "--json"]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { leads: Array<{ placeId: string; sources: string[] }>; requests: Record<string, number> };
    expect(body.leads.map((l) => l.placeId)).toEqual(["osm:node:101", "osm:way:202"]);
    expect(body.leads.every((l) => l.sources.join() === "overpass")).toBe(true);
    expect(body.requests).toEqual({ overpass: 1 });
    const table = await run(["--source", "overpass", "--radius", "4"]);
    expect(table.stderr).toMatch(/requests to outside sources: overpass 1/);
  });

  it("--source google: Google's leads with the request count on stderr", async () => {
    const { run, google } = await setup();
    const result = await run(["--source", "google"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Restaurant Adler Vaduz\t/);
    expect(result.stderr).toMatch(new RegExp(`requests to outside sources: google ${google.requests.length}`));
  });

  it("all three sources: one lead per business, merged across local, Overpass and Google", async () => {
    const { run } = await setup();
    const result = await run(["--source", "local,overpass,google", "--json"]);
    const body = JSON.parse(result.stdout) as { leads: Array<{ placeId: string; sources: string[]; email: string | null; rating: number | null }> };
    const adler = body.leads.filter((l) => l.placeId === "osm:node:101");
    expect(adler).toHaveLength(1);
    expect(adler[0]).toMatchObject({ email: "info@adler-vaduz.li", rating: 4.4 });
    expect(adler[0]!.sources.sort()).toEqual(["google", "local", "overpass"]);
    expect(body.leads.map((l) => l.placeId).sort()).toEqual(["osm:node:101", "osm:way:202"]);
  });

  it("a failing source with another answering: exit 0, the warning on stderr; none answering: exit 6", async () => {
    const { run, overpass, google } = await setup();
    overpass.failNext(504);
    const mixed = await run(["--source", "local,overpass"]);
    expect(mixed.code).toBe(0);
    expect(mixed.stdout).toMatch(/^Restaurant Adler\t/);
    expect(mixed.stderr).toMatch(/! overpass: HTTP 504 \(the server is too busy or the query timed out\); results are from the other sources/);
    google.failNext(503, "UNAVAILABLE", "The service is currently unavailable.");
    const none = await run(["--source", "google", "--radius", "3"]);
    expect(none.code).toBe(6);
    expect(none.stderr).toMatch(/no place source answered \(google: UNAVAILABLE/);
  });

  it("an unknown --source is a usage error before any request", async () => {
    const { run, overpass } = await setup();
    const result = await run(["--source", "local,bing"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--source: unknown source "bing" \(known: local, google, overpass\)/);
    expect(overpass.queries).toHaveLength(0);
  });
});
