import { describe, expect, it } from "vitest";
import type { SearchResult } from "../../src/core/schemas/lead.js";
import { runCli } from "../helpers/cli.js";
import { fixtureLookup, startFixtureSites } from "../helpers/fixture-sites.js";
import { createTestInstance } from "../helpers/instance.js";
import { insertPlaces, offsetKm, VADUZ } from "../helpers/places.js";
import { startTestServer } from "../helpers/server.js";

async function setup() {
  const sites = await startFixtureSites({
    "fast-dental.li": { "/": '<a href="mailto:praxis@fast-dental.li">Mail</a>' },
    // Slower than the search's enrichment budget (never answers its first request), fine for the retry.
    "slow-dental.li": { "/": { body: '<a href="mailto:hallo@slow-dental.li">Mail</a>', holdFirst: true } },
  });
  const t = createTestInstance({ config: { enrich: true, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 5000 } });
  t.services.enrichment.useResolver(fixtureLookup);
  insertPlaces(t.services.deps.db, [
    { placeId: "osm:node:1", name: "Fast Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 0.5, 0), categories: ["dentist"], website: sites.url("fast-dental.li") },
    { placeId: "osm:node:2", name: "Slow Dental", ...offsetKm(VADUZ.lat, VADUZ.lng, 1, 0), categories: ["dentist"], website: sites.url("slow-dental.li") },
  ]);
  const server = await startTestServer(t.services);
  const args = ["--base-url", server.url, "--token", t.token, "leads", "search", "--lat", String(VADUZ.lat), "--lng", String(VADUZ.lng), "--keywords", "dentist"];
  return { args };
}

describe("outreach leads search --complete", () => {
  it("without --complete, the slow site is left pending with a retry token", async () => {
    const { args } = await setup();
    const result = await runCli([...args, "--json"]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as SearchResult;
    const slow = body.leads.find((l) => l.name === "Slow Dental")!;
    expect(slow.enrichmentPending).toBe(true);
    expect(slow.email).toBeNull();
    expect(body.leads.find((l) => l.name === "Fast Dental")!.email).toBe("praxis@fast-dental.li");
    expect(body.enrichmentRetryToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  // Issue 29: the table and TSV do not carry the retry token; without this line the pending leads were invisible.
  it("the table (TTY) and TSV (piped) say on stderr how many leads are pending and the retry command", async () => {
    for (const tty of [false, true]) {
      // A fresh setup each time: the slow site holds only its first request.
      const { args } = await setup();
      const result = await runCli(args, { tty });
      expect(result.code).toBe(0);
      const line = /^1 lead still pending: outreach leads retry ([0-9a-f-]{36})$/m.exec(result.stderr);
      expect(line, result.stderr).not.toBeNull();
      expect(result.stdout).not.toContain(line![1]);
      // The command it names works: the retry finishes the slow site.
      const retry = await runCli([...args.slice(0, 4), "leads", "retry", line![1]!, "--json"]);
      expect(retry.code, retry.stderr).toBe(0);
      expect((JSON.parse(retry.stdout) as { leads: Array<{ email: string | null }> }).leads[0]!.email).toBe("hallo@slow-dental.li");
    }
    // Nothing left pending: no such line (--complete ran the retry).
    const { args } = await setup();
    expect((await runCli([...args, "--complete"])).stderr).not.toMatch(/still pending/);
  });

  it("runs the retry and merges it by placeId into one export", async () => {
    const { args } = await setup();
    const result = await runCli([...args, "--complete", "--json"]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as SearchResult;
    expect(body.leads.map((l) => l.name).sort()).toEqual(["Fast Dental", "Slow Dental"]);
    expect(body.leads.every((l) => l.enrichmentPending !== true)).toBe(true);
    expect(body.leads.find((l) => l.name === "Slow Dental")!.email).toBe("hallo@slow-dental.li");
    expect(body.enrichmentRetryToken).toBeNull();
  });

  it("writes the merged leads as CSV too, and refuses --complete with --ndjson", async () => {
    const { args } = await setup();
    const csv = await runCli([...args, "--complete", "--csv"]);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toContain("hallo@slow-dental.li");
    expect(csv.stdout.split("\n")[0]).toMatch(/^place_id,name,address/);
    expect((await runCli([...args, "--complete", "--ndjson"])).code).toBe(2);
  });
});
