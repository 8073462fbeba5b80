// Reads under write load, against `outreach serve` (the built binary) on loopback:
// GET /healthz and the contact list (GET /api/v1/contacts, workspace A) measured alone and
// while 4 connections add about 100 contacts a second to workspace B (--writes-per-second),
// and while one client imports contacts to
// workspace B in batches of 500 (the import's maximum). Each phase runs ROUNDS times, interleaved; medians are
// printed with the loaded/alone ratio of each round's own baseline.
//
//   npm run build && node bench/load.js                 (5 s phases, 3 rounds, 5,000 contacts in A)
//   node bench/load.js --seconds 3 --rounds 5 --contacts 20000
//   CPU_PROF=/tmp/prof node bench/load.js               (the server writes a V8 CPU profile there)
//   node bench/load.js --root /tmp/old-checkout         (measure another built checkout, e.g. before a change)
//
// The load generator (autocannon) shares the machine's cores with the server: compare the
// columns of one run, not runs on differently loaded machines.
import autocannon from "autocannon";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { addContactRequest, nextEmail, seedReadersAndWriters } from "./fixtures/contact-load.js";
import { processCpuMs, startServe, stopServe } from "./fixtures/outreach-serve.js";
import { freePort } from "./fixtures/server.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const SECONDS = arg("seconds", 5);
const ROUNDS = arg("rounds", 3);
const CONTACTS = arg("contacts", 5000);
const READERS = 10;
const WRITERS = 4;
// The write load of the probe: 4 connections adding about 100 contacts a second.
const WRITES_PER_SECOND = arg("writes-per-second", 100);
const IMPORT_BATCH = 500;

const rootAt = process.argv.indexOf("--root");
const ROOT = rootAt > 0 ? resolve(process.argv[rootAt + 1]) : join(dirname(fileURLToPath(import.meta.url)), "..");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const run = (opts) => autocannon({ duration: SECONDS, ...opts });

function writers(url, token) {
  return run({ url, connections: WRITERS, overallRate: WRITES_PER_SECOND, requests: [addContactRequest(token)] });
}

function importer(url, token) {
  return run({
    url,
    connections: 1,
    requests: [
      {
        method: "POST",
        path: "/api/v1/contacts/import",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            contacts: Array.from({ length: IMPORT_BATCH }, () => ({ email: nextEmail("bulk", "import"), name: "Bulk" })),
          }),
        }),
      },
    ],
  });
}

async function writtenContacts(url, token) {
  const res = await fetch(`${url}/api/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  return (await res.json()).total;
}

/** Wait until writes cut off at the end of a phase (an import still running) are done, so they do not load the next phase. */
async function settle(url, token) {
  let last = -1;
  for (;;) {
    const now = await writtenContacts(url, token);
    if (now === last) return;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

const healthz = (url) => run({ url: `${url}/healthz`, connections: READERS });
const list = (url, token) => run({ url: `${url}/api/v1/contacts?limit=20&page=3`, connections: READERS, headers: { authorization: `Bearer ${token}` } });

const dir = mkdtempSync(join(tmpdir(), "outreach-load-"));
let child;
try {
  const { readerToken, writerToken } = await seedReadersAndWriters(ROOT, dir, CONTACTS);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  child = await startServe(ROOT, dir, port);

  const phases = {
    "healthz alone": () => healthz(url),
    "healthz + 4 writers": () => Promise.all([healthz(url), writers(url, writerToken)]),
    "list alone": () => list(url, readerToken),
    "list + 4 writers": () => Promise.all([list(url, readerToken), writers(url, writerToken)]),
    "list + bulk import": () => Promise.all([list(url, readerToken), importer(url, writerToken)]),
    // No reads: what a write costs the server, in CPU (robust to a busy machine, unlike latencies).
    "4 writers alone": () => Promise.all([null, writers(url, writerToken)]),
    "bulk import alone": () => Promise.all([null, importer(url, writerToken)]),
  };
  // --only "list alone,list + 4 writers": a subset (profiling one phase).
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1].split(",") : null;
  if (only) for (const name of Object.keys(phases)) if (!only.includes(name)) delete phases[name];
  const results = Object.fromEntries(Object.keys(phases).map((k) => [k, []]));
  const writes = { adds: [], imported: [] };
  const cpuPerContact = { "4 writers alone": [], "bulk import alone": [] };
  await healthz(url); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, phase] of Object.entries(phases)) {
      const contactsBefore = await writtenContacts(url, writerToken);
      const cpuBefore = processCpuMs(child.pid);
      const [reads, written] = [await phase()].flat();
      await settle(url, writerToken);
      const contactsWritten = (await writtenContacts(url, writerToken)) - contactsBefore;
      if (name.endsWith("alone") && contactsWritten > 0) cpuPerContact[name].push((processCpuMs(child.pid) - cpuBefore) / contactsWritten);
      for (const result of [reads, written].filter(Boolean)) {
        if (result.non2xx || result.errors) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      }
      if (reads) results[name].push(reads);
      // Contacts the writers' workspace gained (an import still running when the phase ends counts what it wrote).
      if (name.endsWith("+ 4 writers")) writes.adds.push(contactsWritten / SECONDS);
      if (name === "list + bulk import") writes.imported.push(contactsWritten / SECONDS);
    }
  }

  const rps = (name) => median(results[name].map((r) => r.requests.average));
  const p = (name, q) => median(results[name].map((r) => r.latency[q]));
  const ratio = (loaded, alone, pick) => (results[loaded] && results[alone] ? median(results[loaded].map((r, i) => pick(r) / pick(results[alone][i]))) : NaN);
  console.log(`reads under write load: ${READERS} read connections, ${SECONDS} s phases x ${ROUNDS} rounds, ${CONTACTS} contacts in the read workspace (medians)`);
  console.log("phase                    req/s     p50 ms   p99 ms   max ms");
  for (const name of Object.keys(phases)) {
    if (!results[name].length) continue;
    console.log(
      `${name.padEnd(22)} ${rps(name).toFixed(0).padStart(7)} ${p(name, "p50").toFixed(1).padStart(9)} ${p(name, "p99").toFixed(1).padStart(8)} ${median(results[name].map((r) => r.latency.max)).toFixed(0).padStart(8)}`,
    );
  }
  if (writes.adds.length) console.log(`writers added ${median(writes.adds).toFixed(0)} contacts/s`);
  if (writes.imported.length) console.log(`the import wrote ${median(writes.imported).toFixed(0)} contacts/s (batches of ${IMPORT_BATCH})`);
  for (const [name, values] of Object.entries(cpuPerContact)) {
    if (values.length) console.log(`server CPU per contact written, ${name}: ${median(values).toFixed(2)} ms (main thread and checkpoint thread)`);
  }
  console.log(`ratio healthz req/s, with writers / alone: ${ratio("healthz + 4 writers", "healthz alone", (r) => r.requests.average).toFixed(2)}`);
  console.log(`ratio list p99, with writers / alone:      ${ratio("list + 4 writers", "list alone", (r) => r.latency.p99).toFixed(2)}  (target ≤ 2)`);
  console.log(`ratio list p99, with bulk import / alone:  ${ratio("list + bulk import", "list alone", (r) => r.latency.p99).toFixed(2)}  (target ≤ 2)`);
} finally {
  if (child) await stopServe(child);
  rmSync(dir, { recursive: true, force: true });
}
