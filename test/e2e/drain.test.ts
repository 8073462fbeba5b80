import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SearchResult } from "../../src/core/schemas/lead.js";
import { DATABASE_FILE_NAME, openDatabase } from "../../src/store/db.js";
import { cliEnv } from "../helpers/cli.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { tempDir } from "../helpers/data-dir.js";
import { insertLocality, insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";

/** A website that accepts every request and never answers: enrichment waits on it until cut. */
async function silentSite() {
  const held: ServerResponse[] = [];
  let seen = 0;
  let onFirst!: () => void;
  const first = new Promise<void>((resolve) => (onFirst = resolve));
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    held.push(res);
    if (++seen === 1) onFirst();
  });
  closeAfterEach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, first };
}

async function readLines(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("SIGTERM with lead searches streaming and enrichment running", () => {
  it("ends each stream with one complete line (pending leads, a retry token that still works), closes the database last and exits 0", async () => {
    const site = await silentSite();
    const env = cliEnv({
      OUTREACH_ENRICH: "1",
      OUTREACH_FETCH_ALLOW: "127.0.0.1/32",
      // Enrichment alone would wait for the silent site for ten minutes.
      OUTREACH_ENRICH_BUDGET_MS: "600000",
      OUTREACH_ENRICH_SITE_BUDGET_MS: "600000",
    });
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const token = JSON.parse(init.stdout).token as string;
    const db = openDatabase(join(dataDir, DATABASE_FILE_NAME));
    insertPlaces(
      db,
      Array.from({ length: 8 }, (_, i) => ({
        placeId: `osm:node:${100 + i}`,
        name: `Dentist ${i}`,
        ...offsetKm(VADUZ.lat, VADUZ.lng, 0.1 * i, 0.1),
        categories: ["dentist"],
        website: `http://127.0.0.1:${site.port}/dentist-${i}`,
      })),
    );
    insertLocality(db, { kind: "city", key: "vaduz", name: "Vaduz", country: "LI", ...VADUZ, placeCount: 8 });
    db.close();

    const serve = await spawnServe(dataDir, env, ["--shutdown-timeout", "3000"]);
    const searches = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${serve.url}/api/v1/map-leads/search`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/x-ndjson" },
          body: JSON.stringify({ location: "Vaduz", keywords: "dentist" }),
        }),
      ),
    );
    for (const res of searches) expect(res.status).toBe(200);
    await site.first;

    serve.child.kill("SIGTERM");
    const streams = await Promise.all(searches.map(readLines));
    for (const lines of streams) {
      const terminal = lines.filter((l) => l.type !== "progress");
      expect(terminal).toHaveLength(1);
      expect(lines.at(-1)!.type).toBe("complete");
      const result = SearchResult.parse(lines.at(-1)!.data);
      expect(result.leads).toHaveLength(8);
      expect(result.leads.every((l) => l.enrichmentPending === true)).toBe(true);
      expect(result.enrichmentRetryToken).toMatch(/^[0-9a-f-]{36}$/);
    }
    const exit = await serve.exited;
    expect(exit.code).toBe(0);
    expect(serve.stderr()).toMatch(/SIGTERM: finishing in-flight requests \(at most 3000 ms\)/);
    expect(serve.stderr()).toMatch(/shutdown: cutting in-flight work short/);
    expect(serve.stderr()).not.toMatch(/internal error|database connection is not open/);

    // The retry tokens were written before the database closed: one redeems after a restart.
    const again = await spawnServe(dataDir, cliEnv({ OUTREACH_ENRICH: "0" }));
    const retryToken = SearchResult.parse(streams[0]!.at(-1)!.data).enrichmentRetryToken;
    const retry = await fetch(`${again.url}/api/v1/map-leads/enrichment-retry`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ token: retryToken }),
    });
    expect(retry.status).toBe(200);
    expect(((await retry.json()) as { leads: unknown[] }).leads).toHaveLength(8);
  }, 90_000); // Spawns serve and a search that loads the category vocabulary: slow on a loaded machine, never a timing assertion.
});
