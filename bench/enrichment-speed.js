// Enrichment wall time on 40 fixture sites whose every answer (robots.txt included)
// takes 300 ms, 3 pages each (homepage linking a contact and an about page), against
// the sum of the latencies a one-request-at-a-time crawler would wait; then the same
// search again, which must be served from the per-domain cache (0 fetches).
//
//   npm run build && node bench/enrichment-speed.js [runs=3] [connections=8,16]
//
// The global connection limit bounds the speed-up: 160 answers × 300 ms over 8
// connections cannot take less than 6 s (6× the 36 s of page latencies); the bench
// measures 8 and the default, 16, side by side.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loopbackLookup, median, startSites } from "./fixtures/server.js";
import { openInstance } from "../dist/services/instance.js";

const LATENCY = 300;
const SITES = 40;
const runs = Number(process.argv[2] ?? 3);
const connectionLimits = (process.argv[3] ?? "8,16").split(",").map(Number);

const map = {};
for (let i = 0; i < SITES; i++) {
  const host = `business-${i}.de`;
  map[host] = {
    "/": `<title>Business ${i}</title><meta name="description" content="Business number ${i}, a fixture."><a href="/kontakt">Kontakt</a> <a href="/ueber-uns">Über uns</a>`,
    "/kontakt": `<title>Kontakt</title><p>info@${host}</p>`,
    "/ueber-uns": `<title>Über uns</title><p>We have been a family business since ${1900 + i}, serving the town with care.</p>`,
  };
}

for (const connections of connectionLimits) {
const results = [];
for (let run = 0; run < runs; run++) {
  const sites = await startSites(map, { latencyMs: LATENCY });
  const dataDir = mkdtempSync(join(tmpdir(), "outreach-bench-"));
  const instance = openInstance({
    dataDir,
    env: {},
    config: { fetchConnections: connections, enrich: true, emailDnsCheck: false, fetchAllow: ["127.0.0.1/32"], enrichBudgetMs: 120_000, enrichSiteBudgetMs: 120_000, rateLimitPerMinute: 0 },
  });
  try {
    const { team } = instance.services.identity.bootstrap({ name: "Bench", email: "bench@example.com", team: "Bench", plan: "self-hosted" });
    instance.services.enrichment.useResolver(loopbackLookup);
    const leads = Object.keys(map).map((host, i) => ({
      placeId: `p${i}`, name: `Business ${i}`, address: "1 Main St", lat: 47, lng: 9, website: sites.url(host), domain: host,
      phone: null, rating: null, categories: [], email: null, socials: null,
    }));
    const signal = new AbortController().signal;
    const t0 = performance.now();
    const first = await instance.services.enrichment.enrichForSearch(team.id, leads, { signal });
    const wall = performance.now() - t0;
    const fetched = sites.requests.length;
    const found = first.leads.filter((l) => l.email).length;
    const t1 = performance.now();
    const second = await instance.services.enrichment.enrichForSearch(team.id, leads, { signal });
    const cachedWall = performance.now() - t1;
    const refetched = sites.requests.length - fetched;
    results.push({ wall, fetched, found, cachedWall, refetched, cachedFound: second.leads.filter((l) => l.email).length });
  } finally {
    instance.close();
    await sites.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const pagesSum = SITES * 3 * LATENCY;
const requestsSum = median(results.map((r) => r.fetched)) * LATENCY;
const wall = median(results.map((r) => r.wall));
console.log(`runs: ${runs}; ${SITES} sites × 3 pages, ${LATENCY} ms per answer; limits: 2 connections per host, ${connections} in total`);
console.log(`first search: median wall ${wall.toFixed(0)} ms; requests ${median(results.map((r) => r.fetched))} (pages + robots.txt); emails found ${median(results.map((r) => r.found))}/${SITES}`);
console.log(`  sum of page latencies ${pagesSum} ms → speed-up ${(pagesSum / wall).toFixed(1)}×; sum of all request latencies ${requestsSum} ms → ${(requestsSum / wall).toFixed(1)}×`);
console.log(`repeated search: median wall ${median(results.map((r) => r.cachedWall)).toFixed(1)} ms; fetches ${Math.max(...results.map((r) => r.refetched))}; emails ${median(results.map((r) => r.cachedFound))}/${SITES}`);
}
