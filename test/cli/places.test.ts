import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { openDatabase } from "../../src/store/db.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { dataTest, liechtensteinPbf, near } from "../helpers/places-data.js";

function listFile(): string {
  const file = join(tempDir(), "clients.csv");
  writeFileSync(file, "name,lat,lng,website,city,country\nAcme Dental,47.14,9.52,acme-dental.li,Vaduz,LI\nBroken,north,9.5,,,\n");
  return file;
}

describe("outreach places import", () => {
  dataTest("on a terminal: a spinner with counts on stderr, a summary on stdout", async () => {
    const env = cliEnv();
    const result = await runCli(["places", "import", liechtensteinPbf()], { env, tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/liechtenstein-2026-03-29\.osm\.pbf: [\d,]+ places in [\d.]+ s/);
    const added = Number(/added:\s+(\d+)/.exec(result.stdout)?.[1]);
    expect(near(added, 591)).toBe(true);
    expect(result.stdout).toMatch(/data date:\s+2026-03-29/);
    expect(result.stdout).toMatch(/skipped:\s+\d+ infrastructure, \d+ unnamed/);
    expect(result.stdout).toMatch(/with website:\s+\d+/);
  });

  test("piped: tab-separated pairs on stdout, no spinner; rejected rows named on stderr", async () => {
    const result = await runCli(["places", "import", listFile()], { env: cliEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("added\t1\n");
    expect(result.stdout).toContain("skipped\t1 invalid row\n");
    expect(result.stderr).toContain('clients.csv line 3, field lat: lat must be a number between -90 and 90 (got "north")');
    expect(result.stderr).not.toContain("\u001b[");
  });

  test("--json prints one summary per file, and a second run reports the places unchanged", async () => {
    const env = cliEnv();
    const file = listFile();
    const first = await runCli(["places", "import", file, "--json"], { env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject([{ file: "clients.csv", added: 1, total: 1, withWebsite: 1, rejectedRows: [expect.stringContaining("line 3")] }]);
    const again = await runCli(["places", "import", file, "--json"], { env });
    expect(JSON.parse(again.stdout)).toMatchObject([{ added: 0, unchanged: 1, removed: 0, total: 1 }]);
    const replaced = await runCli(["places", "import", file, "--replace", "--json"], { env });
    expect(JSON.parse(replaced.stdout)).toMatchObject([{ added: 0, unchanged: 1, removed: 0, total: 1 }]);
  });

  test("usage errors: remote mode, a bad --bbox, an unknown file (nothing imported)", async () => {
    const env = cliEnv();
    const remote = await runCli(["--base-url", "http://127.0.0.1:9", "places", "import", listFile()], { env });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/acts on a local data directory, not on a server/);
    const bbox = await runCli(["places", "import", listFile(), "--bbox", "1,2,3"], { env });
    expect(bbox.code).toBe(2);
    expect(bbox.stderr).toMatch(/--bbox must be four numbers/);
    const missing = await runCli(["places", "import", listFile(), "/nonexistent/x.osm.pbf"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/x\.osm\.pbf: no such file/);
    const stats = await runCli(["places", "stats", "--json"], { env });
    expect(JSON.parse(stats.stdout).sources).toEqual([]);
  });

  test("Ctrl-C stops the import with exit 130; stopped before anything was written, it leaves no source behind", async () => {
    const env = cliEnv();
    const controller = new AbortController();
    controller.abort();
    const result = await runCli(["places", "import", listFile()], { env, signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("interrupted");
    const stats = JSON.parse((await runCli(["places", "stats", "--json"], { env })).stdout);
    // (Stopped half-way, the source is marked failed: the places import service's tests.)
    expect(stats.sources).toEqual([]);
  });

  test("--help shows an example", async () => {
    const result = await runCli(["places", "import", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("$ outreach places import");
  });
});

describe("outreach places stats", () => {
  dataTest("counts per source, data dates and the attribution lines, in table, piped and --json modes", async () => {
    const env = cliEnv();
    expect((await runCli(["places", "import", liechtensteinPbf(), listFile()], { env })).code).toBe(0);

    const table = await runCli(["places", "stats"], { env, tty: true });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/SOURCE.*KIND.*DATA DATE.*PLACES/);
    // The table fits the terminal without borders, so the file name (what names the source) stays whole.
    expect(table.stdout).toMatch(/^liechtenstein-2026-03-29\.osm\.pbf +osm /m);
    const tableLines = table.stdout.split("\n\n")[0]!.split("\n");
    expect(tableLines).toHaveLength(3);
    expect(Math.max(...tableLines.map((l) => l.length))).toBeLessThanOrEqual(120);
    expect(table.stdout).toContain("© OpenStreetMap contributors, available under the Open Database License (ODbL) 1.0");
    expect(table.stdout).toContain("Contains GeoNames data (geonames.org), CC BY 4.0");

    const piped = await runCli(["places", "stats"], { env });
    const lines = piped.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split("\t").slice(0, 3)).toEqual(["clients.csv", "csv", "unknown"]);
    expect(lines[1]!.split("\t").slice(0, 3)).toEqual(["liechtenstein-2026-03-29.osm.pbf", "osm", "2026-03-29"]);
    expect(piped.stderr).toContain("Open Database License");

    const json = JSON.parse((await runCli(["places", "stats", "--json"], { env })).stdout);
    expect(json.sources).toHaveLength(2);
    expect(json.sources[1]).toMatchObject({ kind: "osm", dataDate: "2026-03-29", licence: "ODbL-1.0", status: "complete" });
    expect(json.index.places).toBe(json.sources[0].places + json.sources[1].places);
    expect(json.attribution).toHaveLength(2);
  });
});

describe("outreach places reindex", () => {
  test("after an import that was killed: stats says how many cells wait, reindex rebuilds them", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    expect((await runCli(["--data-dir", dataDir, "places", "import", listFile(), "--json"], { env })).code).toBe(0);
    expect(JSON.parse((await runCli(["--data-dir", dataDir, "places", "stats", "--json"], { env })).stdout).index.staleCells).toBe(0);
    // What a killed import leaves: places written, their cells not yet packed again.
    const db = openDatabase(join(dataDir, "outreach.db"));
    db.prepare("UPDATE places SET name = 'Acme Dental Clinic'").run();
    db.close();
    const stats = await runCli(["--data-dir", dataDir, "places", "stats"], { env, tty: true });
    expect(stats.stdout).toContain("1 cells of the search index wait for a rebuild");
    const reindex = await runCli(["--data-dir", dataDir, "places", "reindex", "--json"], { env });
    expect(reindex.code).toBe(0);
    expect(JSON.parse(reindex.stdout)).toMatchObject({ cells: 1 });
    expect(JSON.parse((await runCli(["--data-dir", dataDir, "places", "stats", "--json"], { env })).stdout).index.staleCells).toBe(0);
    const search = await runCli(["--data-dir", dataDir, "leads", "search", "--lat", "47.14", "--lng", "9.52", "--keywords", "clinic", "--json"], { env });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout).leads.map((l: { name: string }) => l.name)).toEqual(["Acme Dental Clinic"]);
  });
});

describe("an import that stopped", () => {
  test("stats calls its source partial and says what to do; Ctrl-C exits 130 with the one line 'interrupted'", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const file = join(tempDir(), "shops.ndjson");
    writeFileSync(file, Array.from({ length: 25 }, (_, i) => JSON.stringify({ placeId: `p${i}`, name: `Shop ${i}`, lat: 47 + i / 1000, lng: 9.5 })).join("\n") + "\n");
    // A plain import stopped after its first batch (as a Ctrl-C stops it).
    const instance = createTestInstance({ dataDir });
    const controller = new AbortController();
    await expect(
      instance.services.placesImport.importFile(file, { batchSize: 10, signal: controller.signal, onProgress: (p) => p.places >= 10 && controller.abort() }),
    ).rejects.toThrow(/abort/i);
    instance.close();
    const stats = await runCli(["--data-dir", dataDir, "places", "stats"], { env });
    expect(stats.stdout).toMatch(/shops\.ndjson\t.*\tpartial \(stopped; its places so far are searchable: import the file again to complete it\)/);
    expect(JSON.parse((await runCli(["--data-dir", dataDir, "places", "stats", "--json"], { env })).stdout).sources[0]).toMatchObject({ status: "failed", places: 10 });
    // Ctrl-C (the signal main aborts on SIGINT): exit 130, one line on stderr, nothing else written.
    const stopped = new AbortController();
    stopped.abort();
    const interrupted = await runCli(["--data-dir", dataDir, "places", "import", file, "--replace"], { env, signal: stopped.signal });
    expect(interrupted).toMatchObject({ code: 130, stderr: "interrupted\n", stdout: "" });
    expect(JSON.parse((await runCli(["--data-dir", dataDir, "places", "stats", "--json"], { env })).stdout).sources[0]).toMatchObject({ places: 10 });
  });
});
