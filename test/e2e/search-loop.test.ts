import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_FILE_NAME, openDatabase } from "../../src/store/db.js";
import { builtBin } from "../helpers/built-bin.js";
import { cliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { startFixtureSites } from "../helpers/fixture-sites.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { runBin, runToEnd, type BinResult } from "../helpers/serve-bin.js";

const RUNS = 200;
/** Spawned at a time: the machine has two cores. */
const AT_ONCE = 3;

describe("the lead search, spawned and piped, run after run", () => {
  // Issue 29: about one run in 35–60 ended with exit 134, FATAL ERROR: v8::Module::IsGraphAsync
  // (an extraction worker terminated while Node linked its require()d ES module).
  it(`${RUNS} runs, every one with extraction workers (--refresh against a local site): exit 0 each time, never FATAL`, async () => {
    const sites = await startFixtureSites({
      "127.0.0.1": { "/": '<title>Bakery</title><p>Fresh bread every morning.</p><a href="/contact">Contact</a>', "/contact": "<p>Call +423 555 0101</p>" },
    });
    const env = cliEnv({ OUTREACH_ENRICH: "1", OUTREACH_FETCH_ALLOW: "127.0.0.1/32", OUTREACH_EMAIL_DNS_CHECK: "0" });
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme"], env);
    expect(init.code, init.stderr).toBe(0);
    const db = openDatabase(join(dataDir, DATABASE_FILE_NAME));
    insertPlaces(
      db,
      Array.from({ length: 6 }, (_, i) => ({
        placeId: `osm:node:${i + 1}`,
        name: `Bakery ${i}`,
        ...offsetKm(VADUZ.lat, VADUZ.lng, 0.2 * i, 0),
        categories: ["bakery"],
        website: i < 2 ? sites.url("127.0.0.1", "/") : null,
      })),
    );
    insertLocality(db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 6 });
    db.close();
    const bin = await builtBin();
    const search = () => runToEnd(process.execPath, [bin, "leads", "search", "--location", "Vaduz", "--keywords", "bakery", "--refresh"], { ...env, OUTREACH_DATA_DIR: dataDir });

    const results: BinResult[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < RUNS) {
          next++;
          results.push(await search());
        }
      }),
    );
    expect(results).toHaveLength(RUNS);
    const failed = results.filter((r) => r.code !== 0 || /FATAL|Assertion failed/.test(r.stderr));
    expect(failed.map((r) => `exit ${r.code}: ${r.stderr.slice(0, 300)}`)).toEqual([]);
    // Each run crawled the site (its pages went to the extraction workers), read it without a failure and printed the six leads as rows.
    const incomplete = results.filter((r) => r.stdout.split("\n").filter(Boolean).length !== 6 || /enrichment failed|pending/.test(r.stderr));
    expect(incomplete.map((r) => r.stdout + r.stderr)).toEqual([]);
    expect(sites.hits()).toBeGreaterThanOrEqual(RUNS);
  }, 1_200_000); // 200 spawned CLIs on a loaded 2-core machine
});
