import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { dataDescribe, liechtensteinPbf, monacoPbf, near } from "../helpers/places-data.js";
import { startGeofabrikStub } from "../helpers/geofabrik-stub.js";

interface Stub {
  url: string;
  requests: Array<{ path: string; range?: string; ifRange?: string; userAgent?: string }>;
  md5Of(id: string): string;
  cutNext(afterBytes: number): void;
  corruptNext(): void;
  replace(id: string, bytes: Buffer): void;
  close(): Promise<void>;
}
const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function setup() {
  const stub = (await startGeofabrikStub({
    regions: [
      { id: "europe", name: "Europe", path: "/europe-latest.osm.pbf", bytes: Buffer.from("not used") },
      { id: "liechtenstein", parent: "europe", name: "Liechtenstein", path: "/europe/liechtenstein-latest.osm.pbf", bytes: readFileSync(liechtensteinPbf()) },
      { id: "monaco", parent: "europe", name: "Monaco", path: "/europe/monaco-latest.osm.pbf", bytes: readFileSync(monacoPbf()) },
    ],
  })) as Stub;
  stubs.push(stub);
  const dataDir = tempDir();
  const env = cliEnv({ OUTREACH_DATA_DIR: dataDir, OUTREACH_GEOFABRIK_URL: stub.url });
  return { stub, dataDir, env, run: (argv: string[]) => runCli(argv, { env }) };
}

const pbfGets = (stub: Stub) => stub.requests.filter((r) => r.path.endsWith(".osm.pbf"));

// Real extracts imported and searched: generous on a loaded 2-core machine.
dataDescribe("outreach places download / update (Geofabrik)", () => {
  it("--list [filter] lists the index's regions", async () => {
    const { run } = await setup();
    const all = await run(["places", "download", "--list", "--json"]);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(["europe", "liechtenstein", "monaco"]);
    const filtered = await run(["places", "download", "--list", "liecht"]);
    expect(filtered.stdout).toBe("liechtenstein\tLiechtenstein\teurope\n");
  });

  it("downloads, checks the MD5, imports with --import, and keeps the file: a second run fetches nothing", async () => {
    const { run, stub, dataDir } = await setup();
    const result = await run(["places", "download", "Liechtenstein", "--import", "--json"]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { record: { md5: string; file: string; bytes: number }; downloaded: boolean; imported: { added: number } };
    expect(body.record.md5).toBe(stub.md5Of("liechtenstein"));
    expect(body.record.file).toBe(join(dataDir, "downloads", "liechtenstein-latest.osm.pbf"));
    expect(body.record.bytes).toBe(readFileSync(liechtensteinPbf()).length);
    expect(near(body.imported.added, 591)).toBe(true);
    expect(result.stderr).toMatch(/liechtenstein: downloaded, 3\.3 MB, MD5 [0-9a-f]{32} checked/);
    expect(stub.requests.every((r) => r.userAgent?.startsWith("outreach/"))).toBe(true);
    expect(result.stdout).not.toMatch(/MB\/s/);
    const again = await run(["places", "download", "liechtenstein"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/liechtenstein: already in the cache, unchanged/);
    expect(pbfGets(stub)).toHaveLength(1);
    const search = await run(["leads", "search", "--lat", "47.141", "--lng", "9.5209", "--keywords", "restaurant", "--json"]);
    expect((JSON.parse(search.stdout) as { leads: unknown[] }).leads.length).toBeGreaterThan(10);
  });

  it("on a terminal: progress with bytes, percent, rate and ETA on stderr", async () => {
    const { env } = await setup();
    const result = await runCli(["places", "download", "monaco"], { env, tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/monaco: 0\.7 of 0\.7 MB \(100 %\), [\d.]+ MB\/s, ETA 0 s/);
  });

  it("resumes an interrupted download with Range, and the result matches the published MD5", async () => {
    const { run, stub, dataDir } = await setup();
    stub.cutNext(1_000_000);
    const broken = await run(["places", "download", "liechtenstein"]);
    expect(broken.code).toBe(6);
    expect(broken.stderr).toMatch(/broke off after \d+ bytes.*run the command again to resume/);
    expect(existsSync(join(dataDir, "downloads", "liechtenstein-latest.osm.pbf"))).toBe(false);
    const resumed = await run(["places", "download", "liechtenstein", "--json"]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed: true, record: { md5: stub.md5Of("liechtenstein") } });
    const last = pbfGets(stub).at(-1)!;
    expect(last.range).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(last.range!)![0])).toBeGreaterThan(0);
    expect(last.ifRange).toBe('"liechtenstein-1"');
    expect(readFileSync(join(dataDir, "downloads", "liechtenstein-latest.osm.pbf")).equals(readFileSync(liechtensteinPbf()))).toBe(true);
  });

  it("a body that does not match the MD5 is removed and reported; an unknown region names close ones", async () => {
    const { run, stub, dataDir } = await setup();
    stub.corruptNext();
    const corrupt = await run(["places", "download", "monaco"]);
    expect(corrupt.code).toBe(6);
    expect(corrupt.stderr).toMatch(/does not match its published MD5.*removed/);
    expect(existsSync(join(dataDir, "downloads", "monaco-latest.osm.pbf.part"))).toBe(false);
    const unknown = await run(["places", "download", "mona"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/"mona" is not in Geofabrik's index; did you mean monaco\?/);
  });

  it("update re-downloads and re-imports a region whose extract changed, and leaves the others", async () => {
    const { run, stub } = await setup();
    expect((await run(["places", "download", "liechtenstein", "--import"])).code).toBe(0);
    const unchanged = await run(["places", "update"]);
    expect(unchanged.code).toBe(0);
    expect(unchanged.stderr).toContain("liechtenstein: up to date");
    // Geofabrik publishes a newer extract (here: other bytes) under the same URL.
    stub.replace("liechtenstein", readFileSync(monacoPbf()));
    const updated = await run(["places", "update", "--json"]);
    expect(updated.code).toBe(0);
    const [entry] = JSON.parse(updated.stdout) as Array<{ id: string; result: { downloaded: boolean; imported: { removed: number; total: number } } }>;
    expect(entry).toMatchObject({ id: "liechtenstein", result: { downloaded: true } });
    expect(near(entry!.result.imported.total, 584)).toBe(true);
    expect(entry!.result.imported.removed).toBeGreaterThan(500);
    expect(pbfGets(stub)).toHaveLength(2);
  });
}, { timeout: 120_000 });
