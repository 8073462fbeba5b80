import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { samplePath, SAMPLE_FILE_NAME } from "../../src/places/import/sample.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { near } from "../helpers/places-data.js";
import { runBin } from "../helpers/serve-bin.js";
import { tempDir } from "../helpers/data-dir.js";

// Real imports and a spawned CLI: generous on a loaded 2-core machine.
describe("the bundled Monaco sample", { timeout: 120_000 }, () => {
  it("places import --sample imports it (the whole country, ODbL attribution in stats)", async () => {
    const env = cliEnv();
    const result = await runCli(["places", "import", "--sample", "--json"], { env });
    expect(result.code).toBe(0);
    const [summary] = JSON.parse(result.stdout) as Array<{ file: string; total: number; source: { licence: string; dataDate: string } }>;
    expect(summary).toMatchObject({ file: SAMPLE_FILE_NAME, source: { licence: "ODbL-1.0", dataDate: "2026-07-10" } });
    expect(near(summary!.total, 584)).toBe(true);
    const stats = await runCli(["places", "stats", "--json"], { env });
    expect((JSON.parse(stats.stdout) as { attribution: string[] }).attribution[0]).toMatch(/© OpenStreetMap contributors/);
    const none = await runCli(["places", "import"], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give the files to import, or --sample/);
  });

  it("the README's first command: on a fresh data directory the search imports the sample, says so, and finds restaurants", async () => {
    const env = cliEnv();
    const result = await runCli(["leads", "search", "--location", "Monaco", "--keywords", "restaurant", "--json"], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/places index is empty: importing the bundled sample, Monaco \(© OpenStreetMap contributors, ODbL 1\.0\)/);
    expect(result.stderr).toMatch(/places download <region> --import/);
    const body = JSON.parse(result.stdout) as { leads: Array<{ placeId: string; categories: string[] }>; center: { lat: number; lng: number }; nextPageToken: string | null };
    expect(body.leads).toHaveLength(20);
    expect(body.leads.every((l) => l.placeId.startsWith("osm:"))).toBe(true);
    expect(body.nextPageToken).not.toBeNull();
    expect(Math.abs(body.center.lat - 43.73)).toBeLessThan(0.05);
    // Only a data directory this very search initialised gets it: the second search imports nothing.
    const again = await runCli(["leads", "search", "--location", "Monaco", "--keywords", "cafe"], { env });
    expect(again.stderr).not.toMatch(/importing the bundled sample/);
  });

  it("a search on an empty index that was initialised before says so and how to fix it (no automatic import)", async () => {
    const env = cliEnv({ OUTREACH_DATA_DIR: tempDir() });
    expect((await runCli(["init", "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"], { env })).code).toBe(0);
    // "Vaduz, LI": a bare small town far from every imported place (none here) is a 400 with suggestions (docs/api.md).
    const result = await runCli(["leads", "search", "--location", "Vaduz, LI", "--keywords", "dentist", "--json"], { env });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { leads: unknown[]; warnings: string[] };
    expect(body.leads).toEqual([]);
    expect(body.warnings).toEqual([expect.stringMatching(/the places index is empty; import the bundled Monaco sample with `outreach places import --sample`/)]);
    const table = await runCli(["leads", "search", "--location", "Vaduz, LI", "--keywords", "dentist"], { env });
    expect(table.stderr).toMatch(/! local: the places index is empty/);
  });

  it("ships in the package: package.json lists it, and the built CLI finds it from dist/", async () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { files: string[] };
    expect(pkg.files.some((f) => samplePath().includes(f.replace(/\/$/, "")) && f.startsWith("src/"))).toBe(true);
    const result = await runBin(["places", "import", "--sample", "--json"], cliEnv());
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ file: SAMPLE_FILE_NAME }]);
  });
});
