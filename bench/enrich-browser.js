// What the browser costs: one lead search (all its pages) over 100 sites, of which 20 build their address with
// a script (document.write), run by `outreach serve` twice in the same bench: static only
// (OUTREACH_BROWSER off, the baseline) and with the browser (OUTREACH_BROWSER=auto). Printed
// per mode: wall time of the search, emails found, share of sites rendered (businessSources
// with rendered: true), peak RSS of the server (VmHWM) and of its Chromium processes (sampled
// sum of PSS, shared pages counted once), and /healthz latency polled every 20 ms during the crawl.
//
// Also what the crawl costs the server's event loop itself, apart from the machine's other
// load: the main thread's CPU time during the search (from /proc/<pid>/task/<pid>/stat,
// which on a busy machine a /healthz round trip cannot tell from waiting for a core), and
// its event-loop delay (fixtures/event-loop-probe.js, preloaded). BENCH_CPU_PROF=<dir>
// writes the server's CPU profile there. Issue 26's target: /healthz max during the crawl
// < 50 ms. The load average is printed with the figures.
//
//   npm run build && node bench/enrich-browser.js [sites=100] [scripted=20] [reps=3]
//
// Everything runs on 127.0.0.1: each site is its own listener in this process.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { freePort } from "./fixtures/server.js";
import { startServe } from "./fixtures/outreach-serve.js";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openInstance } from "../dist/services/instance.js";
import { PlacePostingsRepo } from "../dist/places/store/place-postings.js";

const siteCount = Number(process.argv[2] ?? 100);
const scriptedCount = Number(process.argv[3] ?? 20);
const reps = Number(process.argv[4] ?? 3);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Preloaded into the server: its own event-loop delay per phase (SIGUSR2 ends a phase). */
const EVENT_LOOP_PROBE = ["--import", fileURLToPath(new URL("./fixtures/event-loop-probe.js", import.meta.url))];
const CENTER = { lat: 47.141, lng: 9.5209 };


const page = (body) => `<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`;
const prose = "<p>Seit vielen Jahren Ihr Betrieb in der Stadt, mit Beratung, Service und Leidenschaft für unser Handwerk.</p>";

/** Site i: static ones show the address on the homepage or a contact page; scripted ones write it with a script. */
async function startSites() {
  const servers = [];
  for (let i = 0; i < siteCount; i++) {
    const scripted = i % Math.round(siteCount / scriptedCount) === 0 && servers.filter((s) => s.scripted).length < scriptedCount;
    const email = `info@baeckerei${i}.de`;
    const pages = scripted
      ? { "/": page(`<div id="app"></div><script>var a = ['info', 'baeckerei${i}.de'].join('@'); document.write('<p>Kontakt: <a href="mailto:' + a + '">' + a + '</a></p>')</script>`) }
      : i % 2
        ? { "/": page(`${prose}<p>Kontakt: <a href="mailto:${email}">${email}</a></p>`) }
        : { "/": page(`${prose}<a href="/kontakt">Kontakt</a>`), "/kontakt": page(`${prose}<p>Schreiben Sie uns: <a href="mailto:${email}">${email}</a></p>`) };
    const server = createServer((req, res) => {
      const body = pages[req.url ?? "/"];
      res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(body ?? "not found");
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push({ server, port: server.address().port, scripted });
  }
  return servers;
}

function prepareDataDir(sites) {
  const dataDir = mkdtempSync(join(tmpdir(), "outreach-browser-bench-"));
  const instance = openInstance({ dataDir, env: {}, config: { enrich: false } });
  const { token } = instance.services.identity.bootstrap({ name: "Bench", email: "bench@example.com", team: "Bench", plan: "self-hosted" });
  const db = instance.services.deps.db;
  const source = db.prepare("INSERT INTO place_sources (kind, name, data_date, licence, attribution, imported_at) VALUES ('osm', 'bench', NULL, 'x', 'x', '2026-11-22T00:00:00.000Z')").run().lastInsertRowid;
  const insert = db.prepare(`INSERT INTO places (place_id, source_id, name, address, lat, lng, website, categories, category_text, updated_at)
    VALUES (?, ?, ?, 'Main Street 1', ?, ?, ?, '["bakery"]', 'bakery', '2026-11-22T00:00:00.000Z')`);
  sites.forEach((site, i) => insert.run(`osm:node:${i + 1}`, source, `Baeckerei ${i}`, CENTER.lat + (i % 10) * 0.0005, CENTER.lng + Math.floor(i / 10) * 0.0005, `http://127.0.0.1:${site.port}/`));
  new PlacePostingsRepo(db).refresh();
  instance.close();
  return { dataDir, token };
}

/** CPU time (user + system) of a process's main thread, where its event loop runs, in ms (Linux clock ticks of 10 ms). */
function mainThreadCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const status = (pid, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

/** Memory of the server's Chromium descendants (sum of PSS), in MB. */
function browserRss(rootPid) {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,comm="]).toString().trim().split("\n").map((l) => l.trim().split(/\s+/));
  const children = new Map();
  for (const [pid, ppid] of rows) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const tree = new Set();
  const walk = (pid) => (children.get(pid) ?? []).forEach((c) => (tree.add(c), walk(c)));
  walk(String(rootPid));
  // Proportional set size: pages shared by Chromium's processes counted once, not per process.
  const pss = (pid) => {
    try {
      return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  return rows.filter(([pid, , , comm]) => tree.has(pid) && /chrom/i.test(comm)).reduce((sum, [pid]) => sum + pss(pid), 0);
}

async function run(sites, browser, modeEnv = {}) {
  const { dataDir, token } = prepareDataDir(sites);
  const port = await freePort();
  const loopFile = join(dataDir, "event-loop.json");
  const env = {
    BENCH_EVENT_LOOP: loopFile, OUTREACH_ENRICH: "1", OUTREACH_FETCH_ALLOW: "127.0.0.1/32", OUTREACH_EMAIL_DNS_CHECK: "0",
    OUTREACH_ENRICH_BUDGET_MS: "120000", OUTREACH_ENRICH_SITE_BUDGET_MS: "100000", OUTREACH_BROWSER: browser ? "auto" : "off", ...modeEnv,
  };
  const serve = await startServe(ROOT, dataDir, port, { nodeArgs: EVENT_LOOP_PROBE, env });
  const url = `http://127.0.0.1:${port}`;
  try {
    serve.kill("SIGUSR2"); // the event-loop probe: start-up ends here
    const cpuBefore = mainThreadCpuMs(serve.pid);
    const polls = [];
    let browserPeak = 0;
    let searching = true;
    const poller = (async () => {
      while (searching) {
        const t0 = performance.now();
        await (await fetch(`${url}/healthz`)).arrayBuffer();
        polls.push(performance.now() - t0);
        browserPeak = Math.max(browserPeak, browserRss(serve.pid));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const t0 = performance.now();
    // A search answers 20 leads a page: every page of it, one after the other, as a client would.
    const leads = [];
    let pageToken = null;
    do {
      const body = await fetch(`${url}/api/v1/map-leads/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ location: `${CENTER.lat},${CENTER.lng}`, lat: CENTER.lat, lng: CENTER.lng, keywords: "bakery", radiusKm: 5, ...(pageToken ? { pageToken } : {}) }),
      }).then((r) => r.json());
      if (!body.leads) throw new Error(`search failed: ${JSON.stringify(body).slice(0, 300)}`);
      leads.push(...body.leads);
      pageToken = body.nextPageToken;
    } while (pageToken);
    const wall = performance.now() - t0;
    searching = false;
    await poller;
    const mainCpu = mainThreadCpuMs(serve.pid) - cpuBefore;
    serve.kill("SIGUSR2"); // the crawl's phase ends
    await new Promise((r) => setTimeout(r, 100));
    const loop = JSON.parse(readFileSync(`${loopFile}.1`, "utf8"));
    return {
      mainCpu,
      loopMax: loop.max,
      loopP99: loop.p99,
      wall,
      leads: leads.length,
      emails: leads.filter((l) => l.email).length,
      rendered: leads.filter((l) => l.businessSources?.some((s) => s.rendered)).length,
      pending: leads.filter((l) => l.enrichmentPending).length,
      serverPeak: status(serve.pid, "VmHWM"),
      browserPeak,
      healthzMax: Math.max(...polls),
      healthzP50: [...polls].sort((a, b) => a - b)[Math.floor(polls.length / 2)],
      polls: polls.length,
      outcomes: leads.map((l) => `${l.name}:${l.website?.slice(-6)}:${l.enrichmentError?.code ?? l.email ?? "none"}`).join(" "),
    };
  } finally {
    serve.kill("SIGTERM");
    await new Promise((r) => serve.on("close", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const sites = await startSites();
const fmt = (x) => x.toFixed(1);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Median of each figure over the runs of a mode (each figure on its own), and every run's /healthz max. */
const summary = (runs) => {
  const m = Object.fromEntries(Object.keys(runs[0]).filter((k) => typeof runs[0][k] === "number").map((k) => [k, median(runs.map((r) => r[k]))]));
  return { ...m, healthzMaxes: runs.map((r) => fmt(r.healthzMax)).join(", "), outcomes: runs[0].outcomes };
};
const line = (name, r) =>
  `  ${name}: search ${fmt(r.wall / 1000)} s, ${r.emails}/${r.leads} emails, ${r.rendered} rendered (${fmt((100 * r.rendered) / Math.max(1, r.leads))} %), ${r.pending} pending; server peak RSS ${fmt(r.serverPeak)} MB, browser peak PSS ${fmt(r.browserPeak)} MB; /healthz p50 ${fmt(r.healthzP50)} ms, max ${fmt(r.healthzMax)} ms (runs: ${r.healthzMaxes}; ${r.polls} polls); event-loop delay max ${fmt(r.loopMax)} ms, p99 ${fmt(r.loopP99)} ms; main thread CPU ${r.mainCpu} ms ${process.env.BENCH_DEBUG ? r.outcomes : ""}`;
// The modes take turns (static, unconfined, confined, static, …) so that the machine's other
// load falls on all of them alike; each figure is the median over `reps` runs.
const modes = [
  { name: "static only (baseline)       ", browser: false },
  { name: "browser, all cores (before)  ", browser: true, env: { OUTREACH_BROWSER_CPUS: "all" } },
  { name: "browser, confined (the rule) ", browser: true, env: { OUTREACH_BROWSER_CPUS: "auto" } },
];
const results = modes.map(() => []);
const loads = [];
for (let rep = 0; rep < reps; rep++) {
  for (const [i, mode] of modes.entries()) {
    results[i].push(await run(sites, mode.browser, mode.env));
    loads.push(loadavg()[0]);
  }
}
for (const { server } of sites) server.close();
const summaries = results.map(summary);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} (1-minute average after each run: ${loads.map((l) => l.toFixed(1)).join(", ")}; ${availableParallelism()} cores)`);
console.log(`${siteCount} sites, ${sites.filter((s) => s.scripted).length} of them script-built, one lead search by \`outreach serve\` per run, median of ${reps} runs per mode`);
modes.forEach((mode, i) => console.log(line(mode.name, summaries[i])));
const [staticOnly, before, confined] = summaries;
console.log(`ratio: confined browser wall time ${fmt(confined.wall / staticOnly.wall)}× the static search, ${fmt(confined.wall / before.wall)}× the unconfined browser's; /healthz max ${fmt(confined.healthzMax)} vs ${fmt(before.healthzMax)} ms unconfined (${fmt(confined.healthzMax / before.healthzMax)}×), static ${fmt(staticOnly.healthzMax)} ms; emails ${confined.emails} vs ${staticOnly.emails} static`);
