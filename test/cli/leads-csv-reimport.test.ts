import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { startTestServer } from "../helpers/server.js";

/** A summary that starts with "-": the CSV export defuses it with a leading `'`. */
const SUMMARY = "- Family dentistry in Vaduz since 1990, open on Saturdays for emergencies";

describe("a leads search --csv file read back by places import", () => {
  it("keeps the place ids and the summaries, and undoes the export's formula defusing", async () => {
    const sites = await startFixtureSites({ "open-dental.li": { "/": `<html><head><title>Open Dental</title><meta name="description" content="${SUMMARY}"></head><body><p>praxis@open-dental.li</p></body></html>` } });
    const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 5000 } });
    t.services.enrichment.useResolver(fixtureLookup);
    insertPlaces(t.services.deps.db, [
      { placeId: "osm:node:1", name: "Open Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 0.5, 0), categories: ["dentist"], website: sites.url("open-dental.li") },
      { placeId: "osm:way:2", name: "@Home Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 1, 0), categories: ["dentist"] },
    ]);
    const server = await startTestServer(t.services);
    const out = join(tempDir(), "leads.csv");
    const search = ["--base-url", server.url, "--token", t.token, "leads", "search", "--lat", String(VADUZ.lat), "--lng", String(VADUZ.lng), "--keywords", "dentist"];
    const exported = await runCli([...search, "--csv", "--out", out]);
    expect(exported.code).toBe(0);
    // What the spreadsheet sees: defused cells.
    expect(readFileSync(out, "utf8")).toContain(`'@Home Dental`);
    expect(readFileSync(out, "utf8")).toContain(`'${SUMMARY}`);

    const reader = createTestInstance();
    const summary = await reader.services.placesImport.importFile(out);
    expect(summary.added).toBe(2);
    const rows = reader.services.deps.db.prepare("SELECT place_id, name, description, email FROM places ORDER BY place_id").all();
    expect(rows).toEqual([
      // The original id stays readable in the list's own id: csv:<file>:<id> (docs/data.md).
      { place_id: "csv:leads:osm:node:1", name: "Open Dental", description: SUMMARY, email: "praxis@open-dental.li" },
      { place_id: "csv:leads:osm:way:2", name: "@Home Dental", description: null, email: null },
    ]);
  });
});
