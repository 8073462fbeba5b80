import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertLocality, insertPlaces, VADUZ, vaduzPlaces } from "../helpers/places.js";

/** A local data directory holding the Vaduz places only. */
function prepare() {
  const dataDir = tempDir();
  const instance = createTestInstance({ dataDir });
  insertPlaces(instance.services.deps.db, vaduzPlaces());
  insertLocality(instance.services.deps.db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 100 });
  return { env: cliEnv({ OUTREACH_DATA_DIR: dataDir }), deps: { clock: instance.clock } };
}

describe("empty results explain themselves", () => {
  it("stderr says where the location resolved to", async () => {
    const { env, deps } = prepare();
    const r = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "dentist", "--radius", "3"], { env, deps });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`around Vaduz (city, ${VADUZ.lat.toFixed(5)}, ${VADUZ.lng.toFixed(5)}), within 3 km`);
    expect(r.stderr).not.toMatch(/no places imported/);
  });

  it("a place the index holds nothing near: 0 leads and a plain warning saying to import a region", async () => {
    const { env, deps } = prepare();
    const r = await runCli(["leads", "search", "--location", "Paris, FR", "--keywords", "cafe", "--json"], { env, deps });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.leads).toEqual([]);
    expect(result.center.lat).toBeCloseTo(48.85, 1);
    expect(result.warnings).toEqual([expect.stringMatching(/^local: no places imported within 5 km of Paris, FR \(48\.8\d+, 2\.3\d+\); import a region with `outreach places download <region> --import` or `outreach places import FILE`/)]);
    expect(r.stderr).toMatch(/! local: no places imported within 5 km of Paris, FR/);
    // Where places exist but none match, there is no such warning.
    const none = await runCli(["leads", "search", "--location", "Vaduz", "--keywords", "zzzz", "--json"], { env, deps });
    expect(JSON.parse(none.stdout).warnings).toBeUndefined();
  });

  it("`--location Atlantis` is a 400 with suggestions, not a small town far from every imported place", async () => {
    const { env, deps } = prepare();
    const r = await runCli(["leads", "search", "--location", "Atlantis", "--keywords", "cafe"], { env, deps });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--location: "Atlantis" is not a place near the imported places \(the Atlantis we know, in ZA, is far from all of them\); did you mean "Atlantis, ZA"\?/);
    expect(r.stdout).toBe("");
    // Asked for with its country, the town is taken as asked.
    const asked = await runCli(["leads", "search", "--location", "Atlantis, ZA", "--keywords", "cafe", "--json"], { env, deps });
    expect(asked.code, asked.stderr).toBe(0);
    expect(JSON.parse(asked.stdout).center.lat).toBeLessThan(-30);
    // A typo of an imported place suggests it.
    const typo = await runCli(["leads", "search", "--location", "Vadz", "--keywords", "cafe"], { env, deps });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/did you mean "Vaduz, LI"\?/);
  });
});
