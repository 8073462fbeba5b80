import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { SearchResult } from "../../src/core/schemas/lead.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ, vaduzPlaces, type TestPlace } from "../helpers/places.js";

/** A local data directory with the Vaduz places, and a CLI environment pointing at it. */
function prepare(places: TestPlace[] = vaduzPlaces(), plan = "free") {
  const dataDir = tempDir();
  const instance = createTestInstance({ dataDir, plan });
  insertPlaces(instance.services.deps.db, places);
  insertLocality(instance.services.deps.db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 100 });
  const env = cliEnv({ OUTREACH_DATA_DIR: dataDir });
  return { env, dataDir, deps: { clock: instance.clock } };
}

const many: TestPlace[] = Array.from({ length: 45 }, (_, i) => ({
  placeId: `osm:node:${500 + i}`,
  name: `Pizzeria ${i}`,
  ...offsetKm(VADUZ.lat, VADUZ.lng, (i % 7) * 0.25, Math.floor(i / 7) * 0.25),
  categories: ["restaurant"],
  phone: i === 0 ? "+423 111 11 11" : null,
}));

describe("outreach leads search", () => {
  it("on a TTY: spinner with counts on stderr, a table on stdout, and the quota left", async () => {
    const { env, deps } = prepare();
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentist"], { env, deps, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/NAME.*KM.*CATEGORY.*PHONE.*WEBSITE.*EMAIL/);
    expect(r.stdout).toContain("Dentists Vaduz");
    expect(r.stdout).toContain("praxis@meier.li");
    expect(r.stderr).toMatch(/3 leads · page 1/);
    expect(r.stderr).toMatch(/quota: 24 of 25 searches left today \(free plan/);
    // What the location was understood as.
    expect(r.stderr).toMatch(/around Vaduz\b.* \(city, 47\.\d{5}, 9\.\d{5}\)/);
  });

  it("piped without flags: tab-separated rows, nothing else on stdout", async () => {
    const { env, deps } = prepare();
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentist"], { env, deps });
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split("\n").map((l) => l.split("\t"));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual(["Dentists Vaduz", "0.3", "dentist", "+423 232 00 00", "https://www.dentists-vaduz.li/", ""]);
    expect(r.stderr).not.toMatch(/\u001b\[/);
  });

  it("--json prints the final Search result; --pages merges pages by placeId", async () => {
    const { env, deps } = prepare(many);
    const one = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--json"], { env, deps });
    expect(one.code).toBe(0);
    const first = SearchResult.parse(JSON.parse(one.stdout));
    expect(first.leads).toHaveLength(20);
    expect(first.nextPageToken).not.toBeNull();
    const two = SearchResult.parse(JSON.parse((await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--pages", "2", "--json"], { env, deps })).stdout));
    expect(two.leads).toHaveLength(40);
    const all = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--all", "--json"], { env, deps });
    const merged = SearchResult.parse(JSON.parse(all.stdout));
    expect(new Set(merged.leads.map((l) => l.placeId)).size).toBe(45);
    expect(merged.nextPageToken).toBeNull();
    // Three new searches; the pages after the first were free.
    expect(merged.quota).toMatchObject({ used: 3 });
  });

  it("--page-token continues a search", async () => {
    const { env, deps } = prepare(many);
    const first = SearchResult.parse(JSON.parse((await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--json"], { env, deps })).stdout));
    const next = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--page-token", first.nextPageToken!, "--json"], { env, deps });
    const second = SearchResult.parse(JSON.parse(next.stdout));
    expect(second.leads.map((l) => l.placeId).some((id) => first.leads.some((l) => l.placeId === id))).toBe(false);
  });

  it("--ndjson prints the raw stream lines, each parseable, one terminal line per page", async () => {
    const { env, deps } = prepare(many);
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "pizzeria", "--pages", "2", "--ndjson"], { env, deps });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { type: string });
    expect(lines.filter((l) => l.type === "complete")).toHaveLength(2);
    expect(lines[0]!.type).toBe("progress");
  });

  it("--csv --out writes one row per lead with socials and sources as columns", async () => {
    const { env, deps } = prepare();
    const out = join(tempDir(), "leads.csv");
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "restaurant", "--csv", "--out", out], { env, deps });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const rows = parse(readFileSync(out, "utf8"), { columns: true }) as Array<Record<string, string>>;
    // The restaurant; not the hotel whose description mentions one.
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(["email", "linkedin", "facebook", "twitter", "instagram", "source_1_url", "source_4_title"]));
    expect(rows[0]).toMatchObject({ place_id: "osm:way:5", name: "Ristorante Italia", domain: "ristorante-italia.li", facebook: "https://facebook.com/italia", categories: "restaurant; italian restaurant", rating: "4.5" });
  });

  it("--out chooses the format by the extension unless a flag says otherwise (one rule with leads retry)", async () => {
    const { env, deps } = prepare();
    const dir = tempDir();
    const search = ["leads", "search", "--location", "Vaduz", "--keywords", "dentist"];
    // .csv → CSV with a header (it was tab-separated text).
    expect((await runCli([...search, "--out", join(dir, "a.csv")], { env, deps })).code).toBe(0);
    const csv = parse(readFileSync(join(dir, "a.csv"), "utf8"), { columns: true }) as Array<Record<string, string>>;
    expect(csv).toHaveLength(3);
    expect(csv[0]).toMatchObject({ name: "Dentists Vaduz" });
    // .ndjson → the stream's lines; .json → the result; .tsv → the tab-separated rows.
    await runCli([...search, "--out", join(dir, "a.ndjson")], { env, deps });
    expect(readFileSync(join(dir, "a.ndjson"), "utf8").trimEnd().split("\n").map((l) => (JSON.parse(l) as { type: string }).type).at(-1)).toBe("complete");
    await runCli([...search, "--out", join(dir, "a.json")], { env, deps });
    expect(SearchResult.parse(JSON.parse(readFileSync(join(dir, "a.json"), "utf8"))).leads).toHaveLength(3);
    await runCli([...search, "--out", join(dir, "a.tsv")], { env, deps });
    expect(readFileSync(join(dir, "a.tsv"), "utf8").split("\n")[0]!.split("\t")[0]).toBe("Dentists Vaduz");
    // An explicit flag wins over the extension.
    await runCli([...search, "--json", "--out", join(dir, "b.csv")], { env, deps });
    expect(SearchResult.parse(JSON.parse(readFileSync(join(dir, "b.csv"), "utf8"))).leads).toHaveLength(3);
  });

  it("maps errors to the documented exit codes", async () => {
    const { env, deps } = prepare();
    const bad = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentist", "--radius", "500"], { env, deps });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--radius must be at most 100/);
    const unknown = await runCli(["leads", "search", "--location", "Qwxzzy Flurbington", "--keywords", "dentist"], { env, deps });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/not a place we know/);
    const usage = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "x", "--json", "--csv"], { env, deps });
    expect(usage.code).toBe(2);
    const half = await runCli(["leads", "search", "--lat", "47.1", "--keywords", "x"], { env, deps });
    expect(half.code).toBe(2);
  });

  it("--sort orders the leads across pages (distance, name, relevance); anything else is a usage error", async () => {
    const { env, deps } = prepare(many);
    const byName = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "restaurant", "--all", "--sort", "name", "--json"], { env, deps });
    expect(byName.code).toBe(0);
    const names = (JSON.parse(byName.stdout) as SearchResult).leads.map((l) => l.name);
    expect(names).toHaveLength(45);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, "en", { numeric: false })));
    const bad = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "restaurant", "--sort", "rating"], { env, deps });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--sort must be one of relevance, distance, name/);
  });

  it("says on stderr which keywords a typo was read as, and when nothing was found at all", async () => {
    const { env, deps } = prepare();
    const typo = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentsit"], { env, deps });
    expect(typo.code).toBe(0);
    expect(typo.stderr).toMatch(/nothing matched "dentsit" as typed; did you mean "dentist"\? \(showing its leads\)/);
    expect(typo.stdout).toContain("Dentists Vaduz");
    const wrongPlace = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "veterinarain", "--radius", "1"], { env, deps });
    expect(wrongPlace.code).toBe(0);
    expect(wrongPlace.stderr).toMatch(/no leads for "veterinarain"; did you mean "veterinarian"\?/);
  });

  it("exits 6 when the daily quota is used up", async () => {
    const { env, deps, dataDir } = prepare();
    const db = new Database(join(dataDir, "outreach.db"));
    db.prepare("UPDATE teams SET daily_searches_override = 1").run();
    db.close();
    expect((await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentist"], { env, deps })).code).toBe(0);
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "cafe"], { env, deps });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/quota/);
  });

  it("has --help with examples", async () => {
    const r = await runCli(["leads", "search", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n\s+\$ outreach leads search --location Vaduz --keywords dentist/);
  });
});
